import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { WellnessDay } from './wellness-day.table.js';

type Reader = Db | Transaction<Database>;

export async function findWellnessDay(db: Reader, userId: number, date: string): Promise<WellnessDay | undefined> {
  return db.selectFrom('wellness_days').selectAll().where('user_id', '=', userId).where('date', '=', date).executeTakeFirst();
}

/** Writes the whole day: every measurement column, so one not given is cleared. */
export async function saveWellnessDay(trx: Reader, day: WellnessDay): Promise<WellnessDay> {
  const { user_id: _userId, date: _date, created_at: _createdAt, ...replaced } = day;
  return trx
    .insertInto('wellness_days')
    .values(day)
    .onConflict((conflict) => conflict.columns(['user_id', 'date']).doUpdateSet(replaced))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWellnessDay(trx: Reader, userId: number, date: string): Promise<boolean> {
  const { numDeletedRows } = await trx
    .deleteFrom('wellness_days')
    .where('user_id', '=', userId)
    .where('date', '=', date)
    .executeTakeFirstOrThrow();
  return numDeletedRows > 0n;
}

/** The user's recorded days from `from` to `to` inclusive, oldest first. */
export async function wellnessDaysBetween(db: Reader, userId: number, from: string, to: string): Promise<WellnessDay[]> {
  return db
    .selectFrom('wellness_days')
    .selectAll()
    .where('user_id', '=', userId)
    .where('date', '>=', from)
    .where('date', '<=', to)
    .orderBy('date')
    .execute();
}
