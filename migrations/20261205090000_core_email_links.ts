import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../src/db/portable.js';

/**
 * Confirmed email addresses and the one-time links mailed to people: `users.email_verified_at`
 * (null until the person confirms: accounts made before it start unconfirmed), and `email_links`,
 * each link's SHA-256 (never the link itself), what it is for, the address it was mailed to, when
 * it expires and when it was used.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'text').execute();
  await db.schema
    .createTable('email_links')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_sha256', 'text', (column) => column.notNull().unique())
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('email_links_of_user').on('email_links').columns(['user_id', 'purpose']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_links').execute();
  await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
}
