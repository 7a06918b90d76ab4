import type { Kysely } from 'kysely';
import { binaryColumnType } from '../src/db/portable.js';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('activity_files')
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('bytes', binaryColumnType(db), (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('activity_files').execute();
}
