import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../src/db/portable.js';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connection_notices')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('grant_id', 'text', (column) => column.notNull())
    .addColumn('incident', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('detail', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('outcome', 'text')
    .addColumn('settled_at', 'text')
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('claim_owner', 'text')
    .addColumn('last_error', 'text')
    .addUniqueConstraint('connection_notices_one_per_incident', ['user_id', 'incident'])
    .execute();
  await db.schema.createIndex('connection_notices_due').on('connection_notices').columns(['outcome', 'next_attempt_at']).execute();
  // 1 or 0: SQLite binds no booleans.
  await db.schema
    .alterTable('users')
    .addColumn('connection_mail', 'integer', (column) => column.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('connection_mail').execute();
  await db.schema.dropTable('connection_notices').execute();
}
