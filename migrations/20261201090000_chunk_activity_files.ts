import type { Kysely } from 'kysely';
import { binaryColumnType } from '../src/db/portable.js';

/**
 * A stored .fit file becomes a row naming its size and its bytes in pieces of 256 KiB, one row
 * each, so that a process sending the file reads one piece at a time: neither database reads part
 * of one value without loading all of it (SQLite's substr() loads the whole blob on every call).
 */
const PIECE_BYTES = 256 * 1024;

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('activity_file_chunks')
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('bytes', binaryColumnType(db), (column) => column.notNull())
    .addPrimaryKeyConstraint('activity_file_chunks_pkey', ['key', 'position'])
    .execute();
  await db.schema
    .alterTable('activity_files')
    .addColumn('size', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  const keys = await db.selectFrom('activity_files').select('key').execute();
  // One file in memory at a time.
  for (const { key } of keys) {
    const { bytes } = await db.selectFrom('activity_files').select('bytes').where('key', '=', key).executeTakeFirstOrThrow();
    for (let offset = 0; offset < bytes.length; offset += PIECE_BYTES) {
      const piece = bytes.subarray(offset, offset + PIECE_BYTES);
      await db
        .insertInto('activity_file_chunks')
        .values({ key, position: offset / PIECE_BYTES, bytes: piece })
        .execute();
    }
    await db.updateTable('activity_files').set({ size: bytes.length }).where('key', '=', key).execute();
  }
  await db.schema.alterTable('activity_files').dropColumn('bytes').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('activity_files').addColumn('bytes', binaryColumnType(db)).execute();
  const keys = await db.selectFrom('activity_files').select('key').execute();
  for (const { key } of keys) {
    const pieces = await db.selectFrom('activity_file_chunks').select('bytes').where('key', '=', key).orderBy('position').execute();
    await db
      .updateTable('activity_files')
      .set({ bytes: Buffer.concat(pieces.map((piece) => piece.bytes)) })
      .where('key', '=', key)
      .execute();
  }
  await db.schema.alterTable('activity_files').dropColumn('size').execute();
  await db.schema.dropTable('activity_file_chunks').execute();
}
