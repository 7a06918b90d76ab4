import type { Db } from '../db/database.js';
import { parseJson, workoutListingSchema, type WorkoutListing } from './workout-listing.js';

/**
 * The largest list kept, as its JSON in bytes: a few hundred workouts. A larger one is not kept, so
 * what the store holds per person stays bounded; the list kept before it, if any, stays.
 */
export const LAST_WORKOUT_LIST_MAX_BYTES = 128 * 1024;

export interface LastWorkoutList extends WorkoutListing {
  fetchedAt: Date;
}

/**
 * Keeps a list just fetched as the person's last, unless a later one is kept already (two reads of one
 * person may finish out of order). False when it was too large to keep.
 */
export async function keepLastWorkoutList(db: Db, userId: number, grantId: string, list: LastWorkoutList): Promise<boolean> {
  const body = JSON.stringify({ workouts: list.workouts, notes: list.notes } satisfies WorkoutListing);
  if (Buffer.byteLength(body) > LAST_WORKOUT_LIST_MAX_BYTES) return false;
  const row = { grant_id: grantId, fetched_at: list.fetchedAt.toISOString(), body };
  await db
    .insertInto('last_workout_lists')
    .values({ user_id: userId, ...row })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(row).where('last_workout_lists.fetched_at', '<', row.fetched_at))
    .execute();
  return true;
}

/** The person's last list, if it was fetched under `grantId` (all the grants when none is named, as for the export). */
export async function lastWorkoutList(db: Db, userId: number, grantId?: string): Promise<LastWorkoutList | undefined> {
  let query = db.selectFrom('last_workout_lists').select(['fetched_at', 'body']).where('user_id', '=', userId);
  if (grantId !== undefined) query = query.where('grant_id', '=', grantId);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const parsed = parseJson(row.body);
  const listing = workoutListingSchema.safeParse(parsed.ok ? parsed.value : undefined);
  return listing.success ? { fetchedAt: new Date(row.fetched_at), ...listing.data } : undefined;
}
