import type { Selectable } from 'kysely';
import type { ColumnsOf } from '../fields/numeric-field.js';
import type { WELLNESS_MEASUREMENTS } from './wellness.fields.js';

/**
 * One row per user and local date the person recorded wellness for (interface document §2.3), with
 * a column per declared measurement (wellness.fields.ts). A measurement not entered for that day is
 * null here and absent everywhere else.
 */
export type WellnessDayTable = ColumnsOf<typeof WELLNESS_MEASUREMENTS> & {
  user_id: number;
  /** YYYY-MM-DD: the user's local calendar date, as entered. */
  date: string;
  created_at: string;
  updated_at: string;
};

export type WellnessDay = Selectable<WellnessDayTable>;

/** The kind's tables in the shared schema (db/database.ts), declared here so that the shared file names no kind's table. */
declare module '../db/database.js' {
  interface Database {
    wellness_days: WellnessDayTable;
  }
}
