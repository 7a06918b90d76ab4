import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { MealItem, MealItemChanges, NewMealItem } from './meal.table.js';

type Reader = Db | Transaction<Database>;

export async function insertMeal(trx: Reader, item: NewMealItem): Promise<MealItem> {
  return trx.insertInto('meal_items').values(item).returningAll().executeTakeFirstOrThrow();
}

export async function findMeal(db: Reader, userId: number, id: number): Promise<MealItem | undefined> {
  return db.selectFrom('meal_items').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function updateMeal(trx: Reader, userId: number, id: number, changes: MealItemChanges): Promise<MealItem> {
  return trx
    .updateTable('meal_items')
    .set(changes)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteMeal(trx: Reader, userId: number, id: number): Promise<void> {
  await trx.deleteFrom('meal_items').where('user_id', '=', userId).where('id', '=', id).execute();
}

/** Every item of the user's local day, in the order they were eaten. */
export async function mealsOfDay(db: Reader, userId: number, date: string): Promise<MealItem[]> {
  const items = await db
    .selectFrom('meal_items')
    .selectAll()
    .where('user_id', '=', userId)
    .where('local_date', '=', date)
    .execute();
  // Offsets differ within a day (travel, DST), so order by instant, not by the text.
  return items.sort((a, b) => Date.parse(a.logged_at) - Date.parse(b.logged_at) || a.id - b.id);
}

export async function countMealsOfDay(trx: Reader, userId: number, date: string): Promise<number> {
  const { count } = await trx
    .selectFrom('meal_items')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('local_date', '=', date)
    .executeTakeFirstOrThrow();
  return Number(count);
}
