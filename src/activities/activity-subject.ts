import { z } from 'zod';
import { MAX_ROW_ID } from '../db/row-id.js';

const ACTIVITY_ID_ERROR = { error: `must be an activity id (a positive whole number up to ${MAX_ROW_ID})` };

/**
 * An activity's id as an outbox subject: the decimal digits of a positive integer an id column
 * holds. Activities are keyed by their id in this app; the service upserts a file by its hash (§4.4).
 */
export const activityIdSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, ACTIVITY_ID_ERROR)
  .refine((subject) => Number(subject) <= MAX_ROW_ID, ACTIVITY_ID_ERROR);
