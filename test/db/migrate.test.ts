import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database.js';
import { PendingMigrationsError, assertMigrated, migrateToLatest, pendingMigrations } from '../../src/db/migrate.js';

let db: Db;

afterEach(async () => {
  await db.destroy();
});

function freshDb(): Db {
  const path = join(mkdtempSync(join(tmpdir(), 'athlete-sync-db-')), 'nested', 'app.db');
  return createDb({ kind: 'sqlite', path });
}

describe('migrations', () => {
  it('lists every migration as pending on a new database and refuses to run on it', async () => {
    db = freshDb();
    const pending = await pendingMigrations(db);
    expect(pending).toContain('20261121194000_create_users');
    const refusal = assertMigrated(db);
    await expect(refusal).rejects.toBeInstanceOf(PendingMigrationsError);
    await expect(refusal).rejects.toThrow('run `npm run migrate`');
  });

  it('applies pending migrations in order, then none are pending and the schema exists', async () => {
    db = freshDb();
    const applied = await migrateToLatest(db);
    expect(applied).toEqual([...applied].sort());
    expect(applied).toContain('20261121194000_create_users');
    expect(await pendingMigrations(db)).toEqual([]);
    await expect(assertMigrated(db)).resolves.toBeUndefined();
    await db
      .insertInto('users')
      .values({ email: 'a@example.com', password_hash: 'x', timezone: 'Europe/Berlin', created_at: '2026-11-21T00:00:00Z' })
      .execute();
    expect(await db.selectFrom('users').select('email').execute()).toEqual([{ email: 'a@example.com' }]);
  });

  it('is idempotent: migrating twice applies nothing the second time', async () => {
    db = freshDb();
    await migrateToLatest(db);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it('opens SQLite in WAL mode so web and worker processes can share the file', async () => {
    db = freshDb();
    const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    expect(rows[0]?.journal_mode).toBe('wal');
  });
});
