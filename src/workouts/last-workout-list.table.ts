/**
 * The last workouts list each person fetched from the service, answered (marked as such) while the
 * service does not answer. One row per person, its body bounded (last-workout-list.repository.ts).
 */
export interface LastWorkoutListTable {
  user_id: number;
  /** The grant it was fetched with: a list fetched under another grant (perhaps another account at the service) is not answered. */
  grant_id: string;
  /** When it was fetched (ISO 8601, UTC). */
  fetched_at: string;
  /** The listing as read (workout-listing.ts), as JSON: only the fields this app shows, never the service's whole answer. */
  body: string;
}

/** The kind's tables in the shared schema (db/database.ts), declared here so that the shared file names no kind's table. */
declare module '../db/database.js' {
  interface Database {
    last_workout_lists: LastWorkoutListTable;
  }
}
