import type { Kysely } from 'kysely';

/** The wellness days (wellness-day.table.ts); after the core baseline, whose users they belong to. */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('wellness_days')
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('date', 'text', (column) => column.notNull())
    .addColumn('hrv', 'double precision')
    .addColumn('resting_hr', 'integer')
    .addColumn('sleep_secs', 'integer')
    .addColumn('weight', 'double precision')
    .addColumn('vo2max', 'double precision')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('wellness_days_pk', ['user_id', 'date'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('wellness_days').execute();
}
