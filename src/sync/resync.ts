import { lockUser } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import { markHistoryDirty } from './outbox.js';
import { dailyKinds } from './sync-kinds.js';

/**
 * Marks a user's days from `from` to `to` (inclusive) dirty again, of every daily kind, as history
 * (sent after people's changes of now), for support and for filling in the past. Only days already in the outbox:
 * every local change puts its day there, so days the app never touched are left alone and a resync
 * cannot blank a day in the service that this app never wrote. Returns the dates.
 */
export async function markDaysForResync(db: Db, userId: number, from: string, to: string, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    // In turn with the person's own writes, which could otherwise lock the same rows in another order.
    await lockUser(trx, userId);
    const days = await trx
      .selectFrom('outbox')
      .select(['kind', 'subject'])
      .where('user_id', '=', userId)
      .where('kind', 'in', dailyKinds())
      .where('subject', '>=', from)
      .where('subject', '<=', to)
      .orderBy('subject')
      .execute();
    if (days.length > 0) await markHistoryDirty(trx, userId, days, now);
    return [...new Set(days.map((day) => day.subject))];
  });
}
