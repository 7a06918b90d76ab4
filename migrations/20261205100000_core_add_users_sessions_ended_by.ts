import type { Kysely } from 'kysely';

/**
 * Why the person's sessions were last ended (`password_changed`, `signed_out_everywhere`), written
 * with the generation that ended them: a session that finds itself ended tells its person why.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('sessions_ended_by', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('sessions_ended_by').execute();
}
