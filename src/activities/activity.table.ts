import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * An uploaded .fit file: one row per user and file (its SHA-256), whatever name it was given. The
 * bytes themselves are in the ActivityFileStore under activityFileKey(user_id, sha256).
 */
export interface ActivityTable {
  id: Generated<number>;
  user_id: number;
  /** Lower-case hex SHA-256 of the file as sent: the service upserts by a hash of the file (§4.4). */
  sha256: string;
  name: string;
  /** A JSON object as text, sent as the `metadata` part (§2.2). */
  metadata: string;
  /** The name the file had when it was chosen, sent as the file part's filename. */
  file_name: string;
  /** The file's size in bytes. */
  bytes: number;
  /** 1 while the store holds the bytes, 0 once pruned after upload (ACTIVITY_RETENTION); SQLite binds no booleans. */
  file_stored: number;
  created_at: string;
  updated_at: string;
}

export type Activity = Selectable<ActivityTable>;
export type NewActivity = Insertable<ActivityTable>;

/** The kind's tables in the shared schema (db/database.ts), declared here so that the shared file names no kind's table. */
declare module '../db/database.js' {
  interface Database {
    activities: ActivityTable;
  }
}
