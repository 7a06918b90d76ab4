import type { Transaction, Updateable } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { Activity, ActivityTable, NewActivity } from './activity.table.js';

type Reader = Db | Transaction<Database>;

export async function insertActivity(trx: Reader, activity: NewActivity): Promise<Activity> {
  return trx.insertInto('activities').values(activity).returningAll().executeTakeFirstOrThrow();
}

export async function findActivity(db: Reader, userId: number, id: number): Promise<Activity | undefined> {
  return db.selectFrom('activities').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function findActivityByFile(db: Reader, userId: number, sha256: string): Promise<Activity | undefined> {
  return db.selectFrom('activities').selectAll().where('user_id', '=', userId).where('sha256', '=', sha256).executeTakeFirst();
}

export async function updateActivity(trx: Reader, userId: number, id: number, changes: Updateable<ActivityTable>): Promise<Activity> {
  return trx
    .updateTable('activities')
    .set(changes)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteActivity(trx: Reader, userId: number, id: number): Promise<void> {
  await trx.deleteFrom('activities').where('user_id', '=', userId).where('id', '=', id).execute();
}

/** The user's newest activities first, at most `limit`. */
export async function newestActivities(db: Reader, userId: number, limit: number): Promise<Activity[]> {
  return db
    .selectFrom('activities')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The names of the user's activities with these ids, by id; ids of deleted ones are left out. */
export async function activityNames(db: Reader, userId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('activities').select(['id', 'name']).where('user_id', '=', userId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
