import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../../db/portable.js';

/** The meal items (meal.table.ts); after the core baseline, whose users they belong to. */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('meal_items')
    // Never given twice: a delete or edit sent again (its answer lost) never reaches a newer item.
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
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('meal_items').execute();
}
