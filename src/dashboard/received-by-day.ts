import { DateTime } from 'luxon';
import type { DateStyle } from '../dates/date-style.js';
import { addDays, localToday } from '../dates/local-today.js';
import type { Db } from '../db/database.js';
import { receivedSince } from '../sync/sync-statuses.js';
import { dayChart, type DayChart } from '../charts/day-chart.js';

/** The days of the dashboard's sparkline of what the service received: the last two weeks, as the overview. */
export const RECEIVED_DAYS = 14;

/** "1 entry", "12 entries" */
const entriesWords = (count: number) => (count === 1 ? '1 entry' : `${String(count)} entries`);

/**
 * How many of the person's entries (a day of a kind, an activity) the service received on each of
 * their last 14 local days, from each entry's latest send: one sent again counts on the day it was
 * last sent, once.
 */
export async function receivedByDay(db: Db, user: { id: number; timezone: string }, now: Date, style: DateStyle): Promise<DayChart> {
  const today = localToday(now, user.timezone);
  const from = addDays(today, 1 - RECEIVED_DAYS);
  const since = DateTime.fromISO(from, { zone: user.timezone }).startOf('day').toJSDate();
  const counts = new Map<string, number>();
  for (const sent of await receivedSince(db, user.id, since)) {
    const day = DateTime.fromISO(sent).setZone(user.timezone).toISODate()!;
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  return dayChart({
    from,
    to: today,
    values: counts,
    shape: 'spark',
    title: 'Entries received by the service',
    valueWords: entriesWords,
    dayWords: (date) => style.day(date),
  });
}
