import type { Kysely } from 'kysely';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_erasures')
    .addColumn('user_id', 'integer', (column) => column.primaryKey())
    .addColumn('erased_at', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('account_erasures').execute();
}
