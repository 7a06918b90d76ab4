import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
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
  private readonly connection: DatabaseConnection;
  private readonly turns = new Turns();

  constructor(private readonly sqlite: SQLite.Database) {
    super({ database: sqlite });
    this.connection = new BusyRetryingConnection(new CachedStatementConnection(sqlite), sqlite);
  }

  // Kysely's SQLite driver has one connection per process: while a write waits here for the
  // lock, this process's other queries wait for the connection, as they would behind any write.
  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.turns.take();
    return this.connection;
  }

  override async releaseConnection(): Promise<void> {
    this.turns.pass();
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
 * The one connection, taken in the order it was asked for. (Kysely's own lock wakes every waiter at
 * each release, and all but one of them wait again.)
 */
class Turns {
  private taken = false;
  private readonly waiting: Array<() => void> = [];

  async take(): Promise<void> {
    if (!this.taken) {
      this.taken = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** To the next in line, who then holds it; free when none waits. */
  pass(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.taken = false;
  }
}

/** Enough for every query the app writes more than once; an import of N items is a statement of its own. */
const CACHED_STATEMENTS = 200;

/**
 * Longer statements (an import of many items) are prepared each time: a prepared statement holds
 * about 30 bytes for each character of its SQL, and 200 imports of 301 to 500 items kept 85 MB.
 */
const LONGEST_CACHED_SQL = 2_000;

/**
 * Kysely's SQLite connection, keeping each statement once prepared: it prepares every query anew,
 * which took as long as running the app's small queries. Least recently used ones are let go.
 */
class CachedStatementConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SQLite.Statement>();

  constructor(private readonly sqlite: SQLite.Database) {}

  async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.prepared(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // A statement being iterated cannot run another query meanwhile: one of its own.
  async *streamQuery<R>({ sql, parameters, query }: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query)) throw new Error('SQLite streams select queries only');
    for (const row of this.sqlite.prepare(sql).iterate(parameters)) yield { rows: [row as R] };
  }

  private prepared(sql: string): SQLite.Statement {
    if (sql.length > LONGEST_CACHED_SQL) return this.sqlite.prepare(sql);
    const cached = this.statements.get(sql);
    const statement = cached ?? this.sqlite.prepare(sql);
    // Map keeps insertion order: re-inserting marks it the most recently used; the first is the least.
    this.statements.delete(sql);
    this.statements.set(sql, statement);
    if (this.statements.size > CACHED_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
    return statement;
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
