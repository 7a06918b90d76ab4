import { DateTime } from 'luxon';

/** The calendar date `daysAgo` days before today (UTC). */
export function dateDaysAgo(daysAgo: number): string {
  return DateTime.utc().minus({ days: daysAgo }).toISODate();
}
