import { DateTime } from 'luxon';

/**
 * How a person's pages write dates and times: in their locale's words and order, on the 12- or
 * 24-hour clock their locale uses (Intl's own data, through luxon), the same on every page.
 */
export interface DateStyle {
  locale: string;
  /** A calendar date YYYY-MM-DD: "Tue, 24 Nov 2026" (en-GB), "Tue, Nov 24, 2026" (en-US). */
  day(date: string): string;
  /** A time of day at the moment's own offset: "23:40" (en-GB), "11:40 PM" (en-US). */
  time(at: DateTime): string;
  /** A day and a time at the moment's own offset: "Wed, 1 Jul 2026, 14:00" (en-GB), "Wed, Jul 1, 2026, 2:00 PM" (en-US). */
  dayAndTime(at: DateTime): string;
  /** Day and month, for a time that falls on another day: "24 Nov" (en-GB), "Nov 24" (en-US). */
  dayAndMonth(at: DateTime): string;
}

const DAY = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' } as const;

export function dateStyleFor(locale: string): DateStyle {
  return {
    locale,
    day: (date) => DateTime.fromISO(date, { zone: 'utc', locale }).toLocaleString(DAY),
    time: (at) => at.setLocale(locale).toLocaleString(DateTime.TIME_SIMPLE),
    dayAndTime: (at) => at.setLocale(locale).toLocaleString({ ...DAY, ...DateTime.TIME_SIMPLE }),
    dayAndMonth: (at) => at.setLocale(locale).toLocaleString({ day: 'numeric', month: 'short' }),
  };
}
