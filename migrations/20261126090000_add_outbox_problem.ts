import type { Kysely } from 'kysely';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('problem', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('next_attempt_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').dropColumn('next_attempt_at').execute();
  await db.schema.alterTable('outbox').dropColumn('problem').execute();
}
