import type { Kysely } from 'kysely';

/** The last workouts list each person fetched, for when the service does not answer (last-workout-list.table.ts). */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('last_workout_lists')
    .addColumn('user_id', 'integer', (column) => column.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('grant_id', 'text', (column) => column.notNull())
    .addColumn('fetched_at', 'text', (column) => column.notNull())
    .addColumn('body', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('last_workout_lists').execute();
}
