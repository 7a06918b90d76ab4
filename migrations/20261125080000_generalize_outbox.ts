import type { Kysely } from 'kysely';

/**
 * The outbox was keyed by date, for daily kinds only; activities are keyed by their id. The rows
 * and their meaning stay: a date is the subject of a daily kind's entry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sync_days').renameTo('outbox').execute();
  await db.schema.alterTable('outbox').renameColumn('date', 'subject').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').renameColumn('subject', 'date').execute();
  await db.schema.alterTable('outbox').renameTo('sync_days').execute();
}
