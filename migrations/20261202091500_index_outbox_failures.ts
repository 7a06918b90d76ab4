import { sql, type Kysely } from 'kysely';

/**
 * The entries whose sync failed, per person, newest failure first: the dashboard names the last
 * problem among all of a person's entries in one row of this index, however much they have waiting.
 * Partial, so it holds only entries with a failure recorded, and changes only as failures do.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('outbox_failures_by_user')
    .on('outbox')
    .columns(['user_id', 'updated_at'])
    .where(sql.ref('last_error'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('outbox_failures_by_user').execute();
}
