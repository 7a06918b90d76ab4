import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';

/**
 * Where the bytes of uploaded .fit files live, kept apart from the activities' rows so that a
 * partner can put them in object storage (S3, GCS, Azure Blob) by implementing these four
 * methods; nothing else in the app knows where the bytes are. The default keeps them in the
 * database, which every web and worker host already shares.
 *
 * Keys are content addresses (`<userId>/<sha256>`, activityFileKey), so a put is idempotent and the
 * order "put the bytes, then commit the activity's row" is safe: a crash between the two leaves
 * bytes no row names, harmless, and the retried upload puts the same key again.
 */
export interface ActivityFileStore {
  /**
   * Stores the file's bytes under the key, replacing what it held (the same bytes, unless they were
   * damaged), reading them a piece at a time: an upload's file is on disk, never whole in memory.
   */
  put(key: string, file: PiecewiseFile): Promise<void>;
  /** The key's file, to be read piece by piece, or undefined when the key holds none. */
  open(key: string): Promise<StoredFile | undefined>;
  /** Removes the key's bytes; a key that holds none is fine. */
  delete(key: string): Promise<void>;
  /**
   * Removes every file of the user (keys `<userId>/…`), in the transaction that deletes their account.
   * Object storage cannot join it: record the user's prefix in that transaction and delete it after.
   */
  deleteAllOf(trx: Transaction<Database>, userId: number): Promise<void>;
}

/** A file read a piece at a time, so that moving it holds a piece in memory, not the file. */
export interface PiecewiseFile {
  /** Bytes in the file. */
  size: number;
  /** The file's bytes in order, in pieces of any size, from the first each time it is called. */
  pieces(): AsyncIterable<Uint8Array>;
}

/**
 * A stored file (an object store's ranged or streamed GET reads one so too). Its pieces() throws
 * StoredFileGoneError when the file is deleted while it is read: its reader never takes what it
 * got for the whole file.
 */
export type StoredFile = PiecewiseFile;

export class StoredFileGoneError extends Error {
  override name = 'StoredFileGoneError';
  constructor(key: string) {
    super(`the stored file ${key} was deleted while it was read`);
  }
}

/** Lower-case hex SHA-256 of the bytes: the file's identity (the service upserts by a hash of the file, §4.4). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function activityFileKey(userId: number, sha256: string): string {
  return `${userId}/${sha256}`;
}

/** Pieces of 256 KiB: what a worker holds of a file it sends. */
export const STORED_PIECE_BYTES = 256 * 1024;

/** The default store: a row per key in `activity_files` with the size, the bytes in `activity_file_chunks`. */
export function createDatabaseActivityFileStore(db: Db): ActivityFileStore {
  async function* piecesOf(key: string, size: number): AsyncIterable<Uint8Array> {
    for (let position = 0, read = 0; read < size; position++) {
      const piece = await db
        .selectFrom('activity_file_chunks')
        .select('bytes')
        .where('key', '=', key)
        .where('position', '=', position)
        .executeTakeFirst();
      if (!piece) throw new StoredFileGoneError(key);
      read += piece.bytes.length;
      yield piece.bytes;
    }
  }

  return {
    async put(key, file) {
      // One transaction: a reader never finds some pieces of the file and not others.
      await db.transaction().execute(async (trx) => {
        // A file uploaded again repairs bytes damaged in the store since.
        await trx.deleteFrom('activity_file_chunks').where('key', '=', key).execute();
        let position = 0;
        let size = 0;
        for await (const bytes of piecesOfSize(file.pieces(), STORED_PIECE_BYTES)) {
          await trx.insertInto('activity_file_chunks').values({ key, position, bytes }).execute();
          position += 1;
          size += bytes.length;
        }
        await trx
          .insertInto('activity_files')
          .values({ key, size })
          .onConflict((conflict) => conflict.column('key').doUpdateSet((eb) => ({ size: eb.ref('excluded.size') })))
          .execute();
      });
    },
    async open(key) {
      const row = await db.selectFrom('activity_files').select('size').where('key', '=', key).executeTakeFirst();
      if (!row) return undefined;
      return { size: row.size, pieces: () => piecesOf(key, row.size) };
    },
    async delete(key) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('activity_files').where('key', '=', key).execute();
        await trx.deleteFrom('activity_file_chunks').where('key', '=', key).execute();
      });
    },
    async deleteAllOf(trx, userId) {
      // A user id is digits: the prefix holds no LIKE wildcard.
      const prefix = `${activityFileKey(userId, '')}%`;
      await trx.deleteFrom('activity_files').where('key', 'like', prefix).execute();
      await trx.deleteFrom('activity_file_chunks').where('key', 'like', prefix).execute();
    },
  };
}

/**
 * The bytes of `pieces` again, in pieces of `size` bytes (the last one shorter), as Buffers:
 * better-sqlite3 binds a Buffer, not a plain Uint8Array.
 */
async function* piecesOfSize(pieces: AsyncIterable<Uint8Array>, size: number): AsyncIterable<Buffer> {
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  for await (const piece of pieces) {
    for (let offset = 0; offset < piece.length;) {
      const taken = Buffer.from(piece.buffer, piece.byteOffset + offset, Math.min(size - gatheredBytes, piece.length - offset));
      gathered.push(taken);
      gatheredBytes += taken.length;
      offset += taken.length;
      if (gatheredBytes < size) continue;
      yield gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered);
      gathered = [];
      gatheredBytes = 0;
    }
  }
  if (gatheredBytes > 0) yield gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered);
}

/** What happens to a file's bytes once the service has it (ACTIVITY_RETENTION). */
export type ActivityRetention = 'keep' | 'prune-after-upload';

/** The bytes of the activities, and how long they are kept: what the upload and the sender share. */
export interface ActivityFiles {
  store: ActivityFileStore;
  retention: ActivityRetention;
}
