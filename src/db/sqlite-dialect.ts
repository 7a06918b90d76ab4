import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { StartupError } from '../errors.js';
import { DatabaseBusyError } from './database-busy-error.js';
import { DatabaseUnwritableError } from './database-unwritable-error.js';

/**
 * One SQLite file shared by the web and worker processes, where only one can write at a time.
 * SQLite's own wait for the lock (busy_timeout) blocks the event loop, so it is kept short and
 * the rest of the wait is asynchronous, with jitter so that waiting writers do not retry in step.
 */
const BUSY_TIMEOUT_MS = 20;
const BUSY_RETRY_PAUSES_MS = [25, 50, 100, 200, 400];

export function createSqliteDialect(path: string): SqliteDialect {
  return new ImmediateSqliteDialect(openSqlite(path));
}

/** A folder that cannot be created, a file that cannot be opened or written: one line, at start. */
function openSqlite(path: string): SQLite.Database {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    // WAL lets the web and worker processes read while one of them writes.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('foreign_keys = ON');
    return sqlite;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`Cannot open the SQLite database at ${path} (DATABASE_URL): ${reason}`, { cause: error });
  }
}

/**
 * Kysely's SQLite dialect, with transactions that take the write lock when they begin and a busy
 * database waited for without blocking the event loop. Every transaction of the app writes; a
 * deferred one that has read and then wants to write fails at once, whatever busy_timeout says.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly sqlite: SQLite.Database) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqlite);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(private readonly sqlite: SQLite.Database) {
    super({ database: sqlite });
  }

  // Kysely's SQLite driver has one connection per process: while a write waits here for the
  // lock, this process's other queries wait for the connection, as they would behind any write.
  override async acquireConnection(): Promise<DatabaseConnection> {
    return new BusyRetryingConnection(await super.acquireConnection(), this.sqlite);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  // After a full disk or an I/O error SQLite has already rolled the transaction back; a ROLLBACK
  // then fails ("no transaction is active") and would hide the error that ended the transaction.
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
  }
}

/**
 * Runs a statement outside a transaction (a single write, or BEGIN itself) again while the
 * database is busy. Inside a transaction SQLite wants a rollback rather than a retry; BEGIN
 * IMMEDIATE already holds the lock there, so a busy statement is reported at once.
 */
class BusyRetryingConnection implements DatabaseConnection {
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly sqlite: SQLite.Database,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const pausesMs = this.sqlite.inTransaction ? [] : BUSY_RETRY_PAUSES_MS;
    return retryWhileBusy(() => this.connection.executeQuery<R>(query), pausesMs).catch(rethrowIfUnwritable);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

async function retryWhileBusy<T>(run: () => Promise<T>, pausesMs: readonly number[]): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const pauseMs = pausesMs[attempt];
      if (pauseMs === undefined) throw new DatabaseBusyError({ cause: error });
      await sleep(pauseMs / 2 + (Math.random() * pauseMs) / 2);
    }
  }
}

/** SQLite's codes for a file that cannot take writes, with their extended codes (SQLITE_IOERR_WRITE, …). */
const UNWRITABLE_CODES = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];

function rethrowIfUnwritable(error: unknown): never {
  const unwritable = error instanceof SQLite.SqliteError && UNWRITABLE_CODES.some((code) => error.code.startsWith(code));
  throw unwritable ? new DatabaseUnwritableError({ cause: error }) : error;
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, …): another connection holds the lock. */
function isBusy(error: unknown): boolean {
  return error instanceof SQLite.SqliteError && error.code.startsWith('SQLITE_BUSY');
}
