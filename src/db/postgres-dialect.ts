import pg from 'pg';
import {
  PostgresDialect,
  PostgresDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type QueryResult,
} from 'kysely';
import { DatabaseBusyError } from './database-busy-error.js';
import { DatabaseUnreachableError } from './database-unreachable-error.js';
import { DatabaseUnwritableError } from './database-unwritable-error.js';

/**
 * The limits that keep a request from hanging on a crowded database; past them it answers 503 and
 * nothing is written. A lock is waited for about as long as SQLite's (sqlite-dialect.ts). Queries
 * queue for a pooled connection as they queue for SQLite's one connection, so only a pool that
 * stays full for longer (connections stuck behind locks, a server out of connections) is busy.
 */
const LOCK_TIMEOUT_MS = 1000;
const POOL_WAIT_MS = 5000;
const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * SQLSTATEs that mean "others are in the way, try again in a moment": lock_not_available (our
 * lock_timeout), serialization_failure, deadlock_detected, too_many_connections, and
 * query_canceled (our statement_timeout).
 */
const BUSY_SQLSTATES = new Set(['55P03', '40001', '40P01', '53300', '57014']);

/**
 * The server is away: connection_exception (class 08), admin_shutdown, crash_shutdown and
 * cannot_connect_now (starting up or shutting down), or no answer at the socket at all.
 */
const UNREACHABLE_SQLSTATE = /^(08...|57P0[123])$/;
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
/**
 * The server cannot write, whoever asks, until an operator acts: read_only_sql_transaction (a hot
 * standby, default_transaction_read_only), disk_full, and io_error (a failing disk).
 */
const UNWRITABLE_SQLSTATES = new Set(['25006', '53100', '58030']);

/** pg's own errors for a connection that ended under it carry no code. */
const CONNECTION_ENDED = /^Connection terminated|not queryable/;

export interface PostgresSettings {
  /** postgres:// or postgresql://; libpq's `options` parameter (e.g. a search_path) is honoured. */
  url: string;
  poolSize: number;
}

/**
 * Whether a statement is cut off after STATEMENT_TIMEOUT_MS: always for the app's processes, never
 * for the migrations an operator runs, which may index or count a launch's whole outbox (tens of
 * millions of rows) once. Their locks are still waited for only LOCK_TIMEOUT_MS, so a migration
 * never holds the running app's queries up behind it: it fails instead, and is run again.
 */
export type StatementLimit = 'bounded' | 'unbounded';

export function createPostgresDialect({ url, poolSize }: PostgresSettings, statements: StatementLimit = 'bounded'): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: POOL_WAIT_MS,
    lock_timeout: LOCK_TIMEOUT_MS,
    statement_timeout: statements === 'bounded' ? STATEMENT_TIMEOUT_MS : 0,
  });
  // A connection the server closed (pg_terminate_backend, a restart, a failover, a proxy's reset)
  // emits 'error', and an 'error' event with no listener ends the process. The pool listens on its
  // idle connections only; a connection checked out at that moment, in a transaction or between
  // two queries of a request, gets its own listener here. What ran on it fails as
  // DatabaseUnreachableError (503), the pool drops the connection when it comes back, and the
  // next query opens another.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return new FailureKindPostgresDialect({ pool });
}

/**
 * Kysely's Postgres dialect, with the failures above reported as DatabaseBusyError,
 * DatabaseUnreachableError and DatabaseUnwritableError.
 */
class FailureKindPostgresDialect extends PostgresDialect {
  constructor(private readonly settings: PostgresDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new FailureKindPostgresDriver(this.settings);
  }
}

/** Kysely does not export the type of its Postgres connections. */
type PostgresConnection = Parameters<PostgresDriver['releaseConnection']>[0];

class FailureKindPostgresDriver extends PostgresDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    // Any other failure to open a connection (refused, wrong password, no such database) leaves
    // the app without its database until an operator acts, like a server that is down.
    const connection = await reportingKind(() => super.acquireConnection(), { unreachableUnlessBusy: true });
    return new FailureKindConnection(connection as PostgresConnection);
  }

  // Kysely hands back what acquireConnection returned; pg's pool takes back its own client.
  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await super.releaseConnection((connection as FailureKindConnection).connection);
  }
}

class FailureKindConnection implements DatabaseConnection {
  constructor(readonly connection: PostgresConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return reportingKind(() => this.connection.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

async function reportingKind<T>(run: () => Promise<T>, { unreachableUnlessBusy = false } = {}): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isBusy(error)) throw new DatabaseBusyError({ cause: error });
    if (isUnwritable(error)) throw new DatabaseUnwritableError({ cause: error });
    if (unreachableUnlessBusy || isUnreachable(error)) throw new DatabaseUnreachableError({ cause: error });
    throw error;
  }
}

function isBusy(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) return BUSY_SQLSTATES.has(error.code ?? '');
  // pg-pool's only sign that every connection stayed in use for POOL_WAIT_MS.
  return error.message === 'timeout exceeded when trying to connect';
}

function isUnwritable(error: unknown): boolean {
  return error instanceof pg.DatabaseError && UNWRITABLE_SQLSTATES.has(error.code ?? '');
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof pg.DatabaseError) return UNREACHABLE_SQLSTATE.test(error.code ?? '');
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  return UNREACHABLE_SOCKET_CODES.has(code) || CONNECTION_ENDED.test(error.message);
}
