import type { Kysely } from 'kysely';

/**
 * Before dates were bounded, a logged_at such as 9999-12-31T23:30:00Z was filed on the local date
 * +010000-01-01, and its outbox row stopped every sweep at itself. This marks each outbox row whose
 * date is not a calendar date from 1900-01-01 to 2100-12-31 (YYYY-MM-DD) as failed, with the reason,
 * so the sweeper no longer picks it.
 *
 * The meal items on such days are kept as they are: they are what the person logged, and removing
 * them would lose data silently. No date the app takes can name such a day, so they are neither
 * shown nor sent; support finds them by local_date, and the person's request to delete one (by id)
 * still works.
 *
 * Frozen in time: the rule is written out here, not imported, so later changes to the app's dates
 * cannot change what this migration does. Portable: the dates are checked here, not with SQLite's
 * date functions; the database sees only SELECT DISTINCT and UPDATE.
 */
const FIRST = '1900-01-01';
const LAST = '2100-12-31';
const REASON = `Not sent: the date is not a date from ${FIRST} to ${LAST} as YYYY-MM-DD. Its meal items are kept.`;

function isSupportedDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date < FIRST || date > LAST) return false;
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  // A date that does not exist (2026-02-30) comes back as another one.
  return new Date(Date.UTC(year, month - 1, day)).toISOString().startsWith(date);
}

// No down(): marking a day failed is a repair, and undoing it would only bring the blocked sweep back.
export async function up(db: Kysely<any>): Promise<void> {
  const dates = await db.selectFrom('sync_days').select('date').distinct().execute();
  const now = new Date().toISOString();
  for (const { date } of dates) {
    if (isSupportedDate(date)) continue;
    await db
      .updateTable('sync_days')
      .set((eb) => ({ failed_version: eb.ref('version'), last_error: REASON, updated_at: now }))
      .where('date', '=', date)
      .execute();
  }
}
