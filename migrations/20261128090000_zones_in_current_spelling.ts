import type { Kysely } from 'kysely';
import { ianaTimeZoneName } from '../src/accounts/time-zone.js';

/**
 * Zones were stored by ICU's name, which keeps a renamed zone's old spelling (Europe/Kiev for a person
 * who chose Europe/Kyiv); from now on they are stored in IANA's current spelling (time-zone.ts).
 * There is no `down`: both spellings name the same zone, and the old one is not worth restoring.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  const stored = await db.selectFrom('users').select('timezone').distinct().execute();
  for (const { timezone } of stored) {
    const current = ianaTimeZoneName(timezone);
    if (current === undefined || current === timezone) continue;
    await db.updateTable('users').set({ timezone: current }).where('timezone', '=', timezone).execute();
  }
}
