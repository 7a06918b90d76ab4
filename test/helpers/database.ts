import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadDatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/database.js';

/**
 * A fresh, empty database for one stack or test: a SQLite file of its own, or, in the Postgres
 * project (TEST_POSTGRES_URL, see vitest.config.ts), a schema of its own that every connection
 * made from `url` uses, so test files run in parallel in one Postgres database.
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
    const path = join(mkdtempSync(join(tmpdir(), 'athlete-sync-db-')), 'app.db');
    return { kind: 'sqlite', url: `sqlite:${path}`, path, drop: async () => {} };
  }
  const schema = `test_${randomUUID().replaceAll('-', '')}`;
  await onServer(target.url, `create schema ${schema}`);
  const url = new URL(target.url);
  // libpq's `options`: pg sends it at connection start, so every pooled connection gets the schema.
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind: 'postgres',
    url: url.toString(),
    schema,
    serverUrl: target.url,
    // A test may have dropped it already (test/web/readiness.test.ts).
    drop: () => onServer(target.url, `drop schema if exists ${schema} cascade`),
  };
}

/** The app's Kysely on this database, as a process configured with its url would open it. */
export function openDb(database: TestDatabase): Db {
  return createDb(loadDatabaseConfig({ DATABASE_URL: database.url }));
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
