import { DateTime } from 'luxon';
import { z } from 'zod';
import { calendarDateSchema } from './supported-dates.js';

/** The longest range of local dates one request may ask for: a year, leap day included. */
export const MAX_RANGE_DAYS = 366;

/** `?from=YYYY-MM-DD&to=YYYY-MM-DD`, both inclusive, `to` not before `from`, at most MAX_RANGE_DAYS days. */
export const dateRangeSchema = z
  .object({
    from: calendarDateSchema,
    to: calendarDateSchema,
  })
  .refine(({ from, to }) => from <= to, { error: 'must not be before from', path: ['to'] })
  .refine(({ from, to }) => DateTime.fromISO(to).diff(DateTime.fromISO(from), 'days').days < MAX_RANGE_DAYS, {
    error: `must be less than ${MAX_RANGE_DAYS} days after from`,
    path: ['to'],
  });
