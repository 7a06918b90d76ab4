import type { Selectable } from 'kysely';

/**
 * One row per user and local date the person recorded wellness for (interface document §2.3).
 * A measurement not entered for that day is null here and absent everywhere else.
 */
export interface WellnessDayTable {
  user_id: number;
  /** YYYY-MM-DD: the user's local calendar date, as entered. */
  date: string;
  /** Milliseconds. */
  hrv: number | null;
  /** Beats per minute. */
  resting_hr: number | null;
  sleep_secs: number | null;
  /** Kilograms. */
  weight: number | null;
  vo2max: number | null;
  created_at: string;
  updated_at: string;
}

export type WellnessDay = Selectable<WellnessDayTable>;
