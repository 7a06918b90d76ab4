import { DateTime } from 'luxon';

/** The calendar date YYYY-MM-DD it is at `now` in the IANA zone: the user's today, whatever the server's zone. */
export function localToday(now: Date, zone: string): string {
  return DateTime.fromJSDate(now).setZone(zone).toISODate()!;
}

/** The date `days` after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date).plus({ days }).toISODate()!;
}
