import { lockUser } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import { markDirty } from './outbox.js';

/**
 * Marks a user's days from `from` to `to` (inclusive) dirty again, for support and backfills: every
 * day in the range that has meal items or was ever synced. Days the app never touched are left
 * alone, so a resync cannot blank a day in the service that this app never wrote. Returns the dates.
 */
export async function markDaysForResync(db: Db, userId: number, from: string, to: string, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    // In turn with the person's own writes (meals.ts), which could otherwise lock the same days in another order.
    await lockUser(trx, userId);
    const withItems = trx
      .selectFrom('meal_items')
      .select('local_date as date')
      .where('user_id', '=', userId)
      .where('local_date', '>=', from)
      .where('local_date', '<=', to);
    const everSynced = trx
      .selectFrom('sync_days')
      .select('date')
      .where('user_id', '=', userId)
      .where('kind', '=', 'nutrition')
      .where('date', '>=', from)
      .where('date', '<=', to);
    const rows = await withItems.union(everSynced).orderBy('date').execute();
    for (const { date } of rows) await markDirty(trx, { userId, kind: 'nutrition', date }, now);
    return rows.map((row) => row.date);
  });
}
