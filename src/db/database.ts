import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { UserTable } from '../accounts/user.table.js';
import type { ConnectionTable } from '../connections/connection.table.js';
import type { MealItemTable } from '../nutrition/meal.table.js';
import type { SyncDayTable } from '../sync/sync-day.table.js';
import type { Config } from '../config.js';

/** The whole schema as Kysely sees it; it changes only through `migrations/`. */
export interface Database {
  users: UserTable;
  connections: ConnectionTable;
  meal_items: MealItemTable;
  sync_days: SyncDayTable;
}

export type Db = Kysely<Database>;

export function createDb(database: Config['database']): Db {
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(database.path) }) });
}

function openSqlite(path: string): SQLite.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets the web and worker processes read while one of them writes;
  // busy_timeout makes a writer wait for the other's lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** Resolves when the database answers a query that reads it (SQLite answers `select 1` without its file). */
export async function checkDatabase(db: Db): Promise<void> {
  await db.selectFrom('users').select('id').limit(1).execute();
}
