import { DateTime } from 'luxon';

/** The calendar date YYYY-MM-DD it is at `now` in the IANA zone: the user's today, whatever the server's zone. */
export function localToday(now: Date, zone: string): string {
  return DateTime.fromJSDate(now).setZone(zone).toISODate()!;
}

/** The wall time HH:mm it is at `now` in the IANA zone: what a clock on the user's wall shows. */
export function localTimeOfDay(now: Date, zone: string): string {
  return DateTime.fromJSDate(now).setZone(zone).toFormat('HH:mm');
}

/** The date `days` after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date).plus({ days }).toISODate()!;
}
