import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { MealItem, MealItemChanges, NewMealItem } from './meal.table.js';

type Reader = Db | Transaction<Database>;

export async function insertMeal(trx: Reader, item: NewMealItem): Promise<MealItem> {
  return trx.insertInto('meal_items').values(item).returningAll().executeTakeFirstOrThrow();
}

/** Many items in one statement; they come back in the order given (ids ascend in insertion order). */
export async function insertMeals(trx: Reader, items: NewMealItem[]): Promise<MealItem[]> {
  const rows = await trx.insertInto('meal_items').values(items).returningAll().execute();
  return rows.sort((a, b) => a.id - b.id);
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
  const items = await db.selectFrom('meal_items').selectAll().where('user_id', '=', userId).where('local_date', '=', date).execute();
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

/** How many items each of the user's days holds, in one query; a day with none is absent. */
export async function countMealsOfDays(trx: Reader, userId: number, dates: string[]): Promise<Map<string, number>> {
  const rows = await trx
    .selectFrom('meal_items')
    .select((eb) => ['local_date', eb.fn.countAll<number>().as('count')])
    .where('user_id', '=', userId)
    .where('local_date', 'in', dates)
    .groupBy('local_date')
    .execute();
  return new Map(rows.map((row) => [row.local_date, Number(row.count)]));
}

/** The calories of each of the user's days from `from` to `to` inclusive that gives any, read through the index of their days. */
export async function kcalOfDays(db: Reader, userId: number, from: string, to: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('meal_items')
    .select((eb) => ['local_date', eb.fn.sum<number>('kcal').as('kcal')])
    .where('user_id', '=', userId)
    .where('local_date', '>=', from)
    .where('local_date', '<=', to)
    .where('kcal', 'is not', null)
    .groupBy('local_date')
    .execute();
  return new Map(rows.map((row) => [row.local_date, Number(row.kcal)]));
}
