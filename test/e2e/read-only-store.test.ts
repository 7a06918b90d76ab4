import { chmodSync, chownSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, openDb, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { minimalAppEnvironment } from '../helpers/minimal-environment.js';
import { run, type RunOptions } from '../helpers/processes.js';

/**
 * A database the app can read but not write: a SQLite file of mode 444 in a folder the app may
 * write, or a Postgres whose transactions are read-only (a hot standby, default_transaction_read_only).
 * The web and the worker refuse to start on it with one line, instead of starting, answering
 * /readyz 200 and then every change 503.
 */

/** Root writes a file whatever its mode: run as root, the processes run as nobody, an ordinary user. */
const ORDINARY_USER: RunOptions['user'] = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

const ENTRY_POINTS = { web: 'server', worker: 'worker' } as const;

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The ordinary user must reach the project to run it: a folder made by `mktemp -d` (mode 700) on
 * the way from / to the project is opened to others for traversal (execute), nothing more.
 */
function letOrdinaryUserReachProject(): void {
  for (let folder = PROJECT_ROOT; folder !== dirname(folder); folder = dirname(folder)) {
    const { mode } = statSync(folder);
    if ((mode & 0o001) === 0) chmodSync(folder, mode | 0o001);
  }
}

async function migrated(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const db = openDb(database);
  await migrateToLatest(db);
  await db.destroy();
  return database;
}

/** The SQLite file made read-only for the user the processes run as; its folder stays theirs to write. */
function readOnlyFile(database: Extract<TestDatabase, { kind: 'sqlite' }>): string {
  const folder = dirname(database.path);
  if (ORDINARY_USER) {
    for (const path of [folder, ...readdirSync(folder).map((name) => join(folder, name))])
      chownSync(path, ORDINARY_USER.uid, ORDINARY_USER.gid);
  }
  chmodSync(database.path, 0o444);
  return database.url;
}

/** The same Postgres schema, every transaction of it read-only. */
function readOnlyTransactions(database: Extract<TestDatabase, { kind: 'postgres' }>): string {
  const url = new URL(database.url);
  url.searchParams.set('options', `${url.searchParams.get('options')} -c default_transaction_read_only=on`);
  return url.toString();
}

function runEntryPoint(name: 'server' | 'worker', databaseUrl: string, user?: RunOptions['user']) {
  const entryPoint = fileURLToPath(new URL(`../../dist/src/${name}.js`, import.meta.url));
  const env = { ...minimalAppEnvironment(), DATABASE_URL: databaseUrl, REDIS_URL: inject('redisUrl') };
  // One that starts would run until stopped.
  return run(process.execPath, [entryPoint], env, { user, timeoutMs: 15_000 });
}

describe.each(Object.entries(ENTRY_POINTS))('the %s process, on a database it can read but not write', (_process, entryPoint) => {
  it.runIf(testDatabaseKind() === 'sqlite')('refuses to start, with one line, when the SQLite file is read-only', async () => {
    const database = await migrated();
    if (database.kind !== 'sqlite') throw new Error('a SQLite database was expected');
    const url = readOnlyFile(database);
    if (ORDINARY_USER) letOrdinaryUserReachProject();
    // The premise: the user the process runs as may not write the file.
    const opening = await run(
      process.execPath,
      ['-e', `require('node:fs').openSync(${JSON.stringify(database.path)}, 'r+')`],
      {},
      { user: ORDINARY_USER },
    );
    expect(opening.stderr).toMatch(/EACCES/);

    const result = await runEntryPoint(entryPoint, url, ORDINARY_USER);
    expect(result.code).toBe(1);
    expect((result.stdout + result.stderr).trim()).toBe(
      `Cannot write the database at ${url} (DATABASE_URL): attempt to write a readonly database`,
    );
  });

  it.runIf(testDatabaseKind() === 'postgres')('refuses to start, with one line, when Postgres is in read-only mode', async () => {
    const database = await migrated();
    if (database.kind !== 'postgres') throw new Error('a Postgres database was expected');
    const result = await runEntryPoint(entryPoint, readOnlyTransactions(database));
    await database.drop();
    expect(result.code).toBe(1);
    expect((result.stdout + result.stderr).trim()).toMatch(
      /^Cannot write the database at postgres:\/\/\S+ \(DATABASE_URL\): cannot execute UPDATE in a read-only transaction$/,
    );
  });
});
