import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../src/db/portable.js';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('activities')
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
  await db.schema.dropTable('activities').execute();
}
