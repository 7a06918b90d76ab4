import type { Selectable } from 'kysely';
import type { WELLNESS_MEASUREMENTS } from './wellness.fields.js';

type Declared = typeof WELLNESS_MEASUREMENTS;

/** A column per declared measurement (wellness.fields.ts): its value, or null for one not entered that day. */
export type MeasurementColumns = { [Name in keyof Declared as Declared[Name]['column']]: number | null };

/**
 * One row per user and local date the person recorded wellness for (interface document §2.3).
 * A measurement not entered for that day is null here and absent everywhere else.
 */
export type WellnessDayTable = MeasurementColumns & {
  user_id: number;
  /** YYYY-MM-DD: the user's local calendar date, as entered. */
  date: string;
  created_at: string;
  updated_at: string;
};

export type WellnessDay = Selectable<WellnessDayTable>;
