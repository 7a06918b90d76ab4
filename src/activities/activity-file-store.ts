import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';

/**
 * Where the bytes of uploaded .fit files live, kept apart from the activities' rows so that a
 * partner can put them in object storage (S3, GCS, Azure Blob) by implementing these three
 * methods; nothing else in the app knows where the bytes are. The default keeps them in the
 * database, which every web and worker host already shares.
 *
 * Keys are content addresses (`<userId>/<sha256>`, activityFileKey), so a put is idempotent and the
 * order "put the bytes, then commit the activity's row" is safe: a crash between the two leaves
 * bytes no row names, harmless, and the retried upload puts the same key again.
 */
export interface ActivityFileStore {
  /** Stores the bytes under the key, replacing what it held (the same bytes, unless they were damaged). */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes exactly as put, or undefined when the key holds none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Removes the key's bytes; a key that holds none is fine. */
  delete(key: string): Promise<void>;
  /**
   * Removes every file of the user (keys `<userId>/…`), in the transaction that deletes their account.
   * Object storage cannot join it: record the user's prefix in that transaction and delete it after.
   */
  deleteAllOf(trx: Transaction<Database>, userId: number): Promise<void>;
}

/** Lower-case hex SHA-256 of the bytes: the file's identity (the service upserts by a hash of the file, §4.4). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function activityFileKey(userId: number, sha256: string): string {
  return `${userId}/${sha256}`;
}

/** The default store: a row per key in `activity_files`. */
export function createDatabaseActivityFileStore(db: Db): ActivityFileStore {
  return {
    async put(key, bytes) {
      await db
        .insertInto('activity_files')
        // better-sqlite3 binds a Buffer, not a plain Uint8Array; this one shares the bytes, no copy.
        .values({ key, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })
        // A file uploaded again repairs bytes damaged in the store since.
        .onConflict((conflict) => conflict.column('key').doUpdateSet((eb) => ({ bytes: eb.ref('excluded.bytes') })))
        .execute();
    },
    async get(key) {
      const row = await db.selectFrom('activity_files').select('bytes').where('key', '=', key).executeTakeFirst();
      return row?.bytes;
    },
    async delete(key) {
      await db.deleteFrom('activity_files').where('key', '=', key).execute();
    },
    async deleteAllOf(trx, userId) {
      // A user id is digits: the prefix holds no LIKE wildcard.
      await trx.deleteFrom('activity_files').where('key', 'like', `${activityFileKey(userId, '')}%`).execute();
    },
  };
}

/** What happens to a file's bytes once the service has it (ACTIVITY_RETENTION). */
export type ActivityRetention = 'keep' | 'prune-after-upload';

/** The bytes of the activities, and how long they are kept: what the upload and the sender share. */
export interface ActivityFiles {
  store: ActivityFileStore;
  retention: ActivityRetention;
}
