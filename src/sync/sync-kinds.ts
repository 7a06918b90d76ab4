import { z } from 'zod';
import { calendarDateSchema } from '../dates/supported-dates.js';
import { MAX_ROW_ID } from '../db/row-id.js';

/**
 * What the app keeps in the service, each kind with the subject its outbox entries are keyed by:
 * a daily kind by the user's local date (the service upserts nutrition and wellness by date,
 * §4.5, §4.6), activities by the activity's id in this app (the service upserts a file by its
 * hash, §4.4). A new kind joins this list, SUBJECT_SCHEMAS and the senders (senders.ts); the
 * outbox, queue, worker and sweeper take it as it is.
 */
export const SYNC_KINDS = ['nutrition', 'wellness', 'activities'] as const;

export type SyncKind = (typeof SYNC_KINDS)[number];

/** The kinds whose subject is a local date. */
export const DAILY_KINDS = ['nutrition', 'wellness'] as const satisfies readonly SyncKind[];

export type DailyKind = (typeof DAILY_KINDS)[number];

const ACTIVITY_ID_ERROR = { error: `must be an activity id (a positive whole number up to ${MAX_ROW_ID})` };

/** An activity's id as an outbox subject: the decimal digits of a positive integer an id column holds. */
const activityIdSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, ACTIVITY_ID_ERROR)
  .refine((subject) => Number(subject) <= MAX_ROW_ID, ACTIVITY_ID_ERROR);

export const SUBJECT_SCHEMAS: Record<SyncKind, z.ZodType<string>> = {
  nutrition: calendarDateSchema,
  wellness: calendarDateSchema,
  activities: activityIdSchema,
};

export function isDailyKind(kind: SyncKind): kind is DailyKind {
  return (DAILY_KINDS as readonly SyncKind[]).includes(kind);
}
