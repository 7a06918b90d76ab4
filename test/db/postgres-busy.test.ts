import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database.js';
import { DatabaseBusyError } from '../../src/db/database-busy-error.js';
import { migrateToLatest, openForMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';

/** What "busy" is on Postgres, reported as SQLite's busy is (test/web/busy-database.test.ts answers it 503). */
describe.runIf(testDatabaseKind() === 'postgres')('a crowded Postgres', () => {
  let database: TestDatabase;
  let db: Db;

  beforeEach(async () => {
    database = await createTestDatabase();
    db = createDb({ kind: 'postgres', url: database.url, poolSize: 1 });
    await migrateToLatest(db);
  });

  afterEach(async () => {
    await db.destroy();
    await database.drop();
  });

  it('a write waiting for a row another connection holds fails as DatabaseBusyError after about a second', async () => {
    await db.insertInto('users').values({ email: 'a@example.com', password_hash: 'x', timezone: 'UTC', created_at: '' }).execute();
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from users for update');
      const started = performance.now();
      await expect(db.updateTable('users').set({ timezone: 'Europe/Berlin' }).execute()).rejects.toBeInstanceOf(DatabaseBusyError);
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      await holder.end();
    }
    expect(await db.selectFrom('users').select('timezone').execute()).toEqual([{ timezone: 'UTC' }]);
  });

  it('the app’s statements are cut off after 10 s, the migrations’ (npm run migrate) never, and both wait for a lock a second', async () => {
    const settingsOf = async (of: Db) =>
      (
        await sql<{
          statement: string;
          lock: string;
        }>`select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock`.execute(of)
      ).rows[0];
    const migrations = openForMigrations({ kind: 'postgres', url: database.url, poolSize: 1 });
    try {
      expect(await settingsOf(db)).toEqual({ statement: '10s', lock: '1s' });
      expect(await settingsOf(migrations)).toEqual({ statement: '0', lock: '1s' });
    } finally {
      await migrations.destroy();
    }
  });

  it('a query waiting for a connection while the pool is all in use fails as DatabaseBusyError', async () => {
    let began = () => {};
    let finish = () => {};
    const beginning = new Promise<void>((resolve) => (began = resolve));
    const holding = db.transaction().execute(() => {
      began();
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await beginning;
    try {
      await expect(db.selectFrom('users').select('id').execute()).rejects.toBeInstanceOf(DatabaseBusyError);
    } finally {
      finish();
      await holding;
    }
  });
});
