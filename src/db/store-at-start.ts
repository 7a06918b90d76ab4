import type { Config } from '../config.js';
import { StartupError } from '../errors.js';
import { retryUntilReachable, withoutPassword } from '../reach-at-start.js';
import { DatabaseBusyError } from './database-busy-error.js';
import { checkWritable, type Db } from './database.js';
import { DatabaseUnreachableError } from './database-unreachable-error.js';
import { DatabaseUnwritableError } from './database-unwritable-error.js';
import { assertMigrated } from './migrate.js';

export class UnwritableAtStartError extends StartupError {
  override name = 'UnwritableAtStartError';

  constructor(url: string, error: DatabaseUnwritableError) {
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    super(`Cannot write the database at ${withoutPassword(url)} (DATABASE_URL): ${reason}`, { cause: error });
  }
}

/**
 * The start of the web and the workers: the database is migrated (they never change the schema
 * themselves) and takes writes, for a process that could only read it would answer every change
 * 503. A server that is not up yet, or a SQLite file another process is writing, is waited for
 * quietly for at most `timeoutS` (STARTUP_TIMEOUT_S); a database this process cannot write (a
 * read-only file, a Postgres in read-only mode) ends the start at once with one line.
 */
export function assertStoreReadyWithin(db: Db, database: Config['database'], timeoutS: number): Promise<void> {
  const url = database.kind === 'sqlite' ? `sqlite:${database.path}` : database.url;
  return retryUntilReachable(
    { what: 'the database', url, timeoutS },
    async () => {
      await assertMigrated(db);
      await checkWritable(db).catch((error: unknown) => {
        throw error instanceof DatabaseUnwritableError ? new UnwritableAtStartError(url, error) : error;
      });
    },
    (error) => error instanceof DatabaseUnreachableError || error instanceof DatabaseBusyError,
  );
}
