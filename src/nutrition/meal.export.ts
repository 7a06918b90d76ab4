import { exportArray, personRows } from '../accounts/export-pieces.js';
import type { Db } from '../db/database.js';
import { mealView } from './meals.js';

/** The person's meal items, in the account's export. */
export async function* mealsExport(db: Db, userId: number): AsyncGenerator<string> {
  yield* exportArray('meals', mealBatches(db, userId));
}

async function* mealBatches(db: Db, userId: number): AsyncGenerator<unknown[]> {
  for await (const items of personRows(db, 'meal_items', 'id', userId)) yield items.map(mealView);
}
