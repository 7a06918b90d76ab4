import { Kysely, sql } from 'kysely';
import type { AccountErasureTable } from '../accounts/account-erasure.table.js';
import type { EmailLinkTable } from '../accounts/email-link.table.js';
import type { UserTable } from '../accounts/user.table.js';
import type { ConnectionTable } from '../connections/connection.table.js';
import type { ConnectionNoticeTable } from '../notices/notice.table.js';
import type { HistoryTable } from '../sync/history.table.js';
import type { OutboxTable, OutboxWaitingCountTable } from '../sync/outbox.table.js';
import type { Config } from '../config.js';
import { createPostgresDialect, type StatementLimit } from './postgres-dialect.js';
import { createSqliteDialect } from './sqlite-dialect.js';

/**
 * The shared tables as Kysely sees them; each kind adds its own tables to this interface from its
 * folder (module augmentation in its *.table.ts), so that the whole schema is this interface with
 * every kind's part. It changes only through the migrations (docs/architecture.md, "Migrations").
 */
export interface Database {
  users: UserTable;
  connections: ConnectionTable;
  outbox: OutboxTable;
  outbox_waiting_counts: OutboxWaitingCountTable;
  histories: HistoryTable;
  connection_notices: ConnectionNoticeTable;
  account_erasures: AccountErasureTable;
  email_links: EmailLinkTable;
}

export type Db = Kysely<Database>;

export function createDb(database: Config['database'], statements?: StatementLimit): Db {
  const dialect = database.kind === 'sqlite' ? createSqliteDialect(database.path) : createPostgresDialect(database, statements);
  return new Kysely<Database>({ dialect });
}

/** Resolves when the database answers a query that reads it (SQLite answers `select 1` without its file). */
export async function checkDatabase(db: Db): Promise<void> {
  await db.selectFrom('users').select('id').limit(1).execute();
}

/**
 * Resolves when the database takes writes: a write that changes no row, which is refused all the
 * same (DatabaseUnwritableError) by a SQLite file this process may not write and by a Postgres in
 * read-only mode. (A SQLite file the process may not write still opens, read-only, and still reads.)
 */
export async function checkWritable(db: Db): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ id: eb.ref('id') }))
    .where(sql<boolean>`false`)
    .execute();
}
