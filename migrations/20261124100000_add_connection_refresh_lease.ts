import type { Kysely } from 'kysely';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
// One column per statement: SQLite's ALTER TABLE adds one column at a time.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connections').addColumn('refresh_lease_owner', 'text').execute();
  await db.schema.alterTable('connections').addColumn('refresh_lease_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('connections').dropColumn('refresh_lease_until').execute();
  await db.schema.alterTable('connections').dropColumn('refresh_lease_owner').execute();
}
