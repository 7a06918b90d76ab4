import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, binaryColumnType } from '../../db/portable.js';

/**
 * The activities and their stored .fit files (activity.table.ts, activity-file.table.ts); after the
 * core baseline, whose users they belong to. A file is a row naming its size and its bytes in pieces,
 * one row each, so that a process sending it reads one piece at a time (activity-file-store.ts).
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('activity_files')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('size', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('activity_file_chunks')
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('position', 'integer', (column) => column.notNull())
    .addColumn('bytes', binaryColumnType(db), (column) => column.notNull())
    .addPrimaryKeyConstraint('activity_file_chunks_pkey', ['key', 'position'])
    .execute();
  await db.schema
    .createTable('activities')
    // Never given twice: a delete sent again (its answer lost) never reaches a newer activity.
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('metadata', 'text', (column) => column.notNull())
    .addColumn('file_name', 'text', (column) => column.notNull())
    .addColumn('bytes', 'integer', (column) => column.notNull())
    .addColumn('file_stored', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('activities_user_file_unique', ['user_id', 'sha256'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['activities', 'activity_file_chunks', 'activity_files']) await db.schema.dropTable(table).execute();
}
