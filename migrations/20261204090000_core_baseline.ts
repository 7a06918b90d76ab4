import { sql, type Kysely } from 'kysely';
import { autoIncrementPrimaryKey } from '../src/db/portable.js';

/**
 * The tables every kind relies on: the people, their connections, the outbox and the history lane,
 * the mails about connections, the erased accounts. Each kind's own tables are created by its
 * folder's migrations (src/db/migration-folders.ts), which sort after this one (docs/architecture.md,
 * "Migrations").
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await createUsers(db);
  await createConnections(db);
  await createOutbox(db);
  await createHistories(db);
  await createConnectionNotices(db);
  await db.schema
    .createTable('account_erasures')
    .addColumn('user_id', 'integer', (column) => column.primaryKey())
    .addColumn('erased_at', 'text', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['account_erasures', 'connection_notices', 'histories', 'outbox', 'connections', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}

async function createUsers(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    // Never given twice: a session or a queued job left naming a deleted person names nobody else.
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('password_hash', 'text', (column) => column.notNull())
    .addColumn('timezone', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    // 1 or 0: SQLite binds no booleans.
    .addColumn('connection_mail', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('session_generation', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

async function createConnections(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('user_id', 'integer', (column) => column.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('grant_id', 'text', (column) => column.notNull())
    .addColumn('token_key_id', 'text', (column) => column.notNull())
    .addColumn('access_token_sealed', 'text', (column) => column.notNull())
    .addColumn('refresh_token_sealed', 'text', (column) => column.notNull())
    .addColumn('issued_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('refresh_expires_at', 'text')
    .addColumn('scopes', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('refresh_lease_owner', 'text')
    .addColumn('refresh_lease_until', 'text')
    .execute();
}

/** One entry per record at the service (src/sync/outbox.ts): a daily kind's date or an activity's id is its subject. */
async function createOutbox(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('synced_version', 'integer')
    .addColumn('synced_at', 'text')
    .addColumn('failed_version', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('problem', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('fresh_at', 'text')
    .addPrimaryKeyConstraint('outbox_pk', ['user_id', 'kind', 'subject'])
    .execute();
  await db.schema.createIndex('outbox_by_fresh_at').on('outbox').column('fresh_at').execute();
  // Partial: only the entries with a failure recorded, so the dashboard finds a person's last
  // problem in a row or so of it, and it changes only as failures do.
  await db.schema
    .createIndex('outbox_failures_by_user')
    .on('outbox')
    .columns(['user_id', 'updated_at'])
    .where(sql.ref('last_error'), 'is not', null)
    .execute();
}

/** One row per person with history waiting, in the order their turns are queued again (src/sync/history.ts). */
async function createHistories(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('histories')
    .addColumn('user_id', 'integer', (column) => column.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('total', 'integer', (column) => column.notNull())
    .addColumn('last_turn_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('histories_by_last_turn_at').on('histories').column('last_turn_at').execute();
}

async function createConnectionNotices(db: Kysely<any>): Promise<void> {
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
}
