import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { insertUser } from '../../src/accounts/user.repository.js';
import { loadDatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { temporaryFolder } from './temporary-folders.js';

/**
 * A fresh, empty database for one stack or test: a SQLite file of its own, or, in the Postgres
 * project (TEST_POSTGRES_URL, see vitest.config.ts), a schema of its own that every connection
 * made from `url` uses, in a database of the vitest worker's own (workerDatabaseUrl).
 */
export type TestDatabase =
  | { kind: 'sqlite'; url: string; path: string; drop(): Promise<void> }
  | { kind: 'postgres'; url: string; schema: string; serverUrl: string; drop(): Promise<void> };

export function testDatabaseKind(): TestDatabase['kind'] {
  return inject('testDatabase').kind;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const target = inject('testDatabase');
  if (target.kind === 'sqlite') {
    const path = join(temporaryFolder('athlete-sync-db-'), 'app.db');
    return { kind: 'sqlite', url: `sqlite:${path}`, path, drop: async () => {} };
  }
  const serverUrl = await (workerDatabase ??= workerDatabaseUrl(target.url));
  const schema = `test_${randomUUID().replaceAll('-', '')}`;
  await onServer(serverUrl, `create schema ${schema}`);
  const url = new URL(serverUrl);
  // libpq's `options`: pg sends it at connection start, so every pooled connection gets the schema.
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind: 'postgres',
    url: url.toString(),
    schema,
    serverUrl,
    // A test may have dropped it already (test/web/readiness.test.ts).
    drop: () => onServer(serverUrl, `drop schema if exists ${schema} cascade`),
  };
}

let workerDatabase: Promise<string> | undefined;

/** Postgres's codes for "that database exists already" and "the template is busy" (a parallel create). */
const DUPLICATE_DATABASE = '42P04';
const OBJECT_IN_USE = '55006';

/**
 * The database this vitest worker's files share, made on first use and kept between runs. Files run
 * in parallel only across workers, and each worker has its own database because Kysely's migrator
 * reads the catalog of every schema in its database: a file dropping its schema in the same
 * database at that moment would make another file's migration fail.
 */
async function workerDatabaseUrl(serverUrl: string): Promise<string> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_worker_${process.env.VITEST_POOL_ID ?? '1'}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await onServer(serverUrl, `create database ${name}`);
      break;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === DUPLICATE_DATABASE) break;
      if (code !== OBJECT_IN_USE || attempt === 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** The app's Kysely on this database, as a process configured with its url would open it. */
export function openDb(database: TestDatabase): Db {
  return createDb(loadDatabaseConfig({ DATABASE_URL: database.url }));
}

/**
 * A database of the file's own, migrated before its tests and dropped after them: `db()` is the
 * app's Kysely on it (call it inside a test or hook).
 */
export function useMigratedDatabase(): () => Db {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDb(database);
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
  return () => db;
}

/** A database of its own for each test, migrated, holding one person. */
export interface DatabaseWithOnePerson {
  database: TestDatabase;
  db: Db;
  userId: number;
}

/**
 * A migrated database of each test's own, holding one person, dropped after the test: for tests
 * whose child processes open it by its url. Read the result inside a test or hook.
 */
export function useDatabaseWithOnePerson(): () => DatabaseWithOnePerson {
  let current: DatabaseWithOnePerson;
  beforeEach(async () => {
    const database = await createTestDatabase();
    const db = openDb(database);
    await migrateToLatest(db);
    const user = await insertUser(db, {
      email: 'a@example.com',
      password_hash: 'x',
      timezone: 'UTC',
      created_at: new Date().toISOString(),
    });
    current = { database, db, userId: user!.id };
  });
  afterEach(async () => {
    await current.db.destroy();
    await current.database.drop();
  });
  return () => current;
}

/** Runs one statement on its own connection to the Postgres server. */
export async function onServer(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Postgres refuses every insert into `table` with the SQLSTATE of `condition` (e.g. `disk_full`),
 * raised by the server from a trigger as it would be from a full or failing disk, until `allow()`.
 */
export async function refuseInserts(db: Db, table: string, condition: string): Promise<{ allow(): Promise<void> }> {
  await sql
    .raw(
      `create or replace function refuse_write() returns trigger language plpgsql as $$ begin raise exception '${condition}' using errcode = '${condition}'; end $$`,
    )
    .execute(db);
  await sql.raw(`create or replace trigger refuse_write before insert on ${table} execute function refuse_write()`).execute(db);
  return { allow: async () => void (await sql.raw(`drop trigger refuse_write on ${table}`).execute(db)) };
}
