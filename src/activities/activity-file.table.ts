/**
 * The uploaded .fit files, as sent, for the database's ActivityFileStore (activity-file-store.ts):
 * a row per key with the file's size, and its bytes in pieces, a row each, read one at a time.
 * Nothing else refers to them.
 */
export interface ActivityFileTable {
  /** `<userId>/<sha256>`: see activityFileKey. */
  key: string;
  /** Bytes in the file: the sum of its pieces. */
  size: number;
}

export interface ActivityFileChunkTable {
  key: string;
  /** 0 for the file's first piece, then 1, 2, … in the file's order. */
  position: number;
  /** SQLite's blob, Postgres's bytea: both hand back a Buffer. */
  bytes: Buffer;
}

/** The kind's tables in the shared schema (db/database.ts), declared here so that the shared file names no kind's table. */
declare module '../db/database.js' {
  interface Database {
    activity_files: ActivityFileTable;
    activity_file_chunks: ActivityFileChunkTable;
  }
}
