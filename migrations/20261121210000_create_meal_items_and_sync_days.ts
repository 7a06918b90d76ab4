import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../src/db/portable.js';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meal_items')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('carbs', 'double precision', (column) => column.notNull())
    .addColumn('protein', 'double precision')
    .addColumn('fat', 'double precision')
    .addColumn('kcal', 'double precision')
    .addColumn('absorption_type', 'text')
    .addColumn('logged_at', 'text', (column) => column.notNull())
    .addColumn('local_date', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('meal_items_by_user_and_day').on('meal_items').columns(['user_id', 'local_date']).execute();

  await db.schema
    .createTable('sync_days')
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('date', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('synced_version', 'integer')
    .addColumn('synced_at', 'text')
    .addColumn('failed_version', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('sync_days_pk', ['user_id', 'kind', 'date'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sync_days').execute();
  await db.schema.dropTable('meal_items').execute();
}
