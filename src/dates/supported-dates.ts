import { z } from 'zod';

/**
 * The dates the app works with: years 1900 to 2100, far wider than anyone's meal log. Inside them
 * every date is written YYYY-MM-DD with a four-digit year, as the service's `date` field is
 * (interface document §2.4), and dates sort and compare as text, which the store's date ranges
 * rely on. Outside them luxon writes years such as +010000-01-01 and -000001-12-31.
 */
export const SUPPORTED_DATES = { first: '1900-01-01', last: '2100-12-31' } as const;

const DATE_RULE = `must be a date as YYYY-MM-DD from ${SUPPORTED_DATES.first} to ${SUPPORTED_DATES.last}`;

/** A calendar date YYYY-MM-DD within SUPPORTED_DATES: every local date the app takes or produces. */
export const calendarDateSchema = z.iso
  .date({ error: DATE_RULE, abort: true })
  .refine((date) => date >= SUPPORTED_DATES.first && date <= SUPPORTED_DATES.last, { error: DATE_RULE });

export function isSupportedDate(value: string): boolean {
  return calendarDateSchema.safeParse(value).success;
}
