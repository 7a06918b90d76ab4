/**
 * The bytes of uploaded .fit files, as sent, for the database's ActivityFileStore
 * (activity-file-store.ts). One row per key; nothing else refers to it.
 */
export interface ActivityFileTable {
  /** `<userId>/<sha256>`: see activityFileKey. */
  key: string;
  /** SQLite's blob, Postgres's bytea: both hand back a Buffer. */
  bytes: Buffer;
}
