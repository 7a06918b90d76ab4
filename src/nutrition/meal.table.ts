import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { ColumnsOf } from '../fields/numeric-field.js';
import type { MEAL_AMOUNTS } from './meal.fields.js';

/** A meal item, with a column per declared amount (meal.fields.ts): its value, or null when not given. */
export type MealItemTable = ColumnsOf<typeof MEAL_AMOUNTS> & {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** Grams. */
  carbs: number;
  absorption_type: string | null;
  /**
   * The instant as it will be sent: ISO 8601 in the offset the item belongs to (+hh:mm, never Z).
   * Keeping the offset means a later change of the user's zone never moves an old item.
   */
  logged_at: string;
  /** YYYY-MM-DD: the calendar date of logged_at at its offset. */
  local_date: string;
  created_at: string;
  updated_at: string;
};

export type MealItem = Selectable<MealItemTable>;
export type NewMealItem = Insertable<MealItemTable>;
export type MealItemChanges = Updateable<MealItemTable>;

/** The kind's tables in the shared schema (db/database.ts), declared here so that the shared file names no kind's table. */
declare module '../db/database.js' {
  interface Database {
    meal_items: MealItemTable;
  }
}
