import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabaseActivityFileStore, STORED_PIECE_BYTES } from '../../src/activities/activity-file-store.js';
import { readWhole } from '../helpers/file-content.js';
import { createDb, type Db } from '../../src/db/database.js';
import { PendingMigrationsError, assertMigrated, createMigrator, migrateToLatest, pendingMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, openDb, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';

let database: TestDatabase;
let db: Db;

afterEach(async () => {
  await db.destroy();
  await database.drop();
});

async function freshDb(): Promise<Db> {
  database = await createTestDatabase();
  return openDb(database);
}

describe('migrations', () => {
  it('lists every migration as pending on a new database and refuses to run on it', async () => {
    db = await freshDb();
    const pending = await pendingMigrations(db);
    expect(pending).toContain('20261121194000_create_users');
    const refusal = assertMigrated(db);
    await expect(refusal).rejects.toBeInstanceOf(PendingMigrationsError);
    await expect(refusal).rejects.toThrow('run `npm run migrate`');
  });

  it('applies pending migrations in order, then none are pending and the schema exists', async () => {
    db = await freshDb();
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
    db = await freshDb();
    await migrateToLatest(db);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it.runIf(testDatabaseKind() === 'sqlite')('creates the folder of a SQLite file', async () => {
    database = await createTestDatabase();
    const path = join(temporaryFolder('athlete-sync-db-'), 'nested', 'app.db');
    db = createDb({ kind: 'sqlite', path });
    await migrateToLatest(db);
    expect(existsSync(path)).toBe(true);
  });

  it.runIf(testDatabaseKind() === 'sqlite')('opens SQLite in WAL mode so web and worker processes can share the file', async () => {
    db = await freshDb();
    const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    expect(rows[0]?.journal_mode).toBe('wal');
  });

  it('marks outbox days outside 1900–2100 failed with the reason, so the sweeper stops picking them, and keeps their items', async () => {
    db = await freshDb();
    const { error } = await (await createMigrator(db)).migrateTo('20261121210000_create_meal_items_and_sync_days');
    expect(error).toBeUndefined();
    const before = '2026-11-21T00:00:00.000Z';
    const { id: userId } = await db
      .insertInto('users')
      .values({ email: 'a@example.com', password_hash: 'x', timezone: 'Europe/Berlin', created_at: before })
      .returning('id')
      .executeTakeFirstOrThrow();
    const unsupported = ['+010000-01-01', '-000001-12-31', '2101-01-01', '2026-02-30'];
    const dates = [...unsupported, '1900-01-01', '2026-03-10', '2100-12-31'];
    // The table as that migration left it, before the outbox was generalized.
    await (db as Kysely<any>)
      .insertInto('sync_days')
      .values(
        dates.map((date) => ({ user_id: userId, kind: 'nutrition' as const, date, version: 3, synced_version: 1, updated_at: before })),
      )
      .execute();
    const item = { user_id: userId, name: 'Oats', carbs: 60, created_at: before, updated_at: before };
    await db
      .insertInto('meal_items')
      .values([
        { ...item, logged_at: '+010000-01-01T00:30:00+01:00', local_date: '+010000-01-01' },
        { ...item, logged_at: '2026-03-10T08:00:00+01:00', local_date: '2026-03-10' },
      ])
      .execute();

    await migrateToLatest(db);

    const rows = await db.selectFrom('outbox').select(['subject', 'failed_version', 'last_error']).execute();
    const reason = 'Not sent: the date is not a date from 1900-01-01 to 2100-12-31 as YYYY-MM-DD. Its meal items are kept.';
    expect(Object.fromEntries(rows.map((row) => [row.subject, [row.failed_version, row.last_error]]))).toEqual({
      ...Object.fromEntries(unsupported.map((date) => [date, [3, reason]])),
      '1900-01-01': [null, null],
      '2026-03-10': [null, null],
      '2100-12-31': [null, null],
    });
    expect(await db.selectFrom('meal_items').select('local_date').orderBy('local_date').execute()).toEqual([
      { local_date: '+010000-01-01' },
      { local_date: '2026-03-10' },
    ]);
  });

  it('20261129090000_add_sync_lanes makes what waited history: one backfill per person with entries to send', async () => {
    db = await freshDb();
    expect((await (await createMigrator(db)).migrateTo('20261127090000_item_ids_never_reused')).error).toBeUndefined();
    const at = '2026-11-20T10:00:00.000Z';
    const user = (email: string) => ({ email, password_hash: 'x', timezone: 'UTC', created_at: at });
    const ids = await db
      .insertInto('users')
      .values([user('a@example.com'), user('b@example.com')])
      .returning('id')
      .execute();
    const [waiting, clean] = ids.map((row) => row.id);
    const entry = { kind: 'nutrition' as const, updated_at: at };
    await db
      .insertInto('outbox')
      .values([
        { ...entry, user_id: waiting!, subject: '2026-03-01', version: 2, synced_version: 1 },
        { ...entry, user_id: waiting!, subject: '2026-03-02', version: 1, updated_at: '2026-11-19T09:00:00.000Z' },
        { ...entry, user_id: clean!, subject: '2026-03-01', version: 3, synced_version: 3 },
        { ...entry, user_id: clean!, subject: '2026-03-02', version: 2, synced_version: 1, failed_version: 2 },
      ])
      .execute();
    await migrateToLatest(db);
    expect(await db.selectFrom('backfills').selectAll().execute()).toEqual([
      { user_id: waiting, started_at: '2026-11-19T09:00:00.000Z', total: 2, last_turn_at: '2026-11-19T09:00:00.000Z' },
    ]);
    expect(await db.selectFrom('outbox').select('fresh_at').distinct().execute()).toEqual([{ fresh_at: null }]);
  });

  it('20261201090000_chunk_activity_files keeps every stored file byte for byte, in pieces of 256 KiB', async () => {
    db = await freshDb();
    expect((await (await createMigrator(db)).migrateTo('20261130090000_create_last_workout_lists')).error).toBeUndefined();
    const large = randomBytes(2 * STORED_PIECE_BYTES + 1000);
    const small = randomBytes(100);
    await (db as Kysely<any>)
      .insertInto('activity_files')
      .values([
        { key: '1/large', bytes: large },
        { key: '1/small', bytes: small },
      ])
      .execute();
    await migrateToLatest(db);
    const store = createDatabaseActivityFileStore(db);
    expect(Buffer.from((await readWhole(store, '1/large'))!).equals(large)).toBe(true);
    expect(Buffer.from((await readWhole(store, '1/small'))!).equals(small)).toBe(true);
    const pieces = await db.selectFrom('activity_file_chunks').select(['key', 'position']).orderBy('key').orderBy('position').execute();
    expect(pieces).toEqual([
      { key: '1/large', position: 0 },
      { key: '1/large', position: 1 },
      { key: '1/large', position: 2 },
      { key: '1/small', position: 0 },
    ]);
  });

  describe.runIf(testDatabaseKind() === 'sqlite')('20261128100000_user_ids_never_reused', () => {
    it('builds an older users table again with AUTOINCREMENT: rows, ids and what refers to them kept; a deleted newest id is never given again', async () => {
      db = await freshDb();
      expect((await (await createMigrator(db)).migrateTo('20261128090000_zones_in_current_spelling')).error).toBeUndefined();
      // As a database made before the users migration used AUTOINCREMENT: the same table with a plain rowid alias.
      await sql`pragma foreign_keys = off`.execute(db);
      await sql`create table users_old (id integer primary key, email text not null unique, password_hash text not null, timezone text not null, created_at text not null)`.execute(
        db,
      );
      await sql`drop table users`.execute(db);
      await sql`alter table users_old rename to users`.execute(db);
      await sql`pragma foreign_keys = on`.execute(db);
      const user = (email: string) => ({ email, password_hash: 'x', timezone: 'UTC', created_at: '2026-11-21T00:00:00.000Z' });
      await db
        .insertInto('users')
        .values([
          { id: 3, ...user('a@example.com') },
          { id: 7, ...user('b@example.com') },
        ])
        .execute();
      await db
        .insertInto('meal_items')
        .values({ user_id: 7, name: 'Oats', carbs: 1, logged_at: 'x', local_date: '2026-03-10', created_at: 'x', updated_at: 'x' })
        .execute();

      await migrateToLatest(db);

      expect(await db.selectFrom('users').select(['id', 'email']).orderBy('id').execute()).toEqual([
        { id: 3, email: 'a@example.com' },
        { id: 7, email: 'b@example.com' },
      ]);
      await db.deleteFrom('users').where('id', '=', 7).execute();
      // The foreign key still cascades: the table the items refer to is the rebuilt one.
      expect(await db.selectFrom('meal_items').select('id').execute()).toEqual([]);
      const { id } = await db.insertInto('users').values(user('c@example.com')).returning('id').executeTakeFirstOrThrow();
      expect(id).toBe(8);
    });
  });

  describe.runIf(testDatabaseKind() === 'sqlite')('20261127090000_item_ids_never_reused', () => {
    const before = '2026-11-21T00:00:00.000Z';

    async function databaseBeforeIt(): Promise<number> {
      db = await freshDb();
      expect((await (await createMigrator(db)).migrateTo('20261126090000_add_outbox_problem')).error).toBeUndefined();
      const { id: userId } = await db
        .insertInto('users')
        .values({ email: 'a@example.com', password_hash: 'x', timezone: 'Europe/Berlin', created_at: before })
        .returning('id')
        .executeTakeFirstOrThrow();
      const item = { user_id: userId, name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:00:00+01:00', local_date: '2026-03-10' };
      await db
        .insertInto('meal_items')
        .values([
          { ...item, id: 5, created_at: before, updated_at: before },
          { ...item, id: 9, created_at: before, updated_at: before },
        ])
        .execute();
      const activity = { user_id: userId, name: 'Ride', metadata: 'x'.repeat(2000), file_name: 'ride.fit', bytes: 1, file_stored: 1 };
      await db
        .insertInto('activities')
        .values(
          Array.from({ length: 200 }, (_, index) => ({
            ...activity,
            id: index + 3,
            sha256: String(index),
            created_at: before,
            updated_at: before,
          })),
        )
        .execute();
      return userId;
    }

    async function rows() {
      return {
        tables: (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like '%rebuilt'`.execute(db))
          .rows,
        items: await db.selectFrom('meal_items').select('id').orderBy('id').execute(),
        activities: (await db.selectFrom('activities').select('id').execute()).length,
      };
    }

    it('keeps the rows and their ids, and gives a new row an id above them', async () => {
      const userId = await databaseBeforeIt();
      await migrateToLatest(db);
      expect(await rows()).toEqual({ tables: [], items: [{ id: 5 }, { id: 9 }], activities: 200 });
      await db.deleteFrom('meal_items').where('id', '=', 9).execute();
      const added = await db
        .insertInto('meal_items')
        .values({
          user_id: userId,
          name: 'Rice',
          carbs: 1,
          logged_at: before,
          local_date: '2026-03-10',
          created_at: before,
          updated_at: before,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(added.id).toBe(10);
    });

    it('changes nothing when it fails halfway (the disk full), and runs again once the disk has room', async () => {
      await databaseBeforeIt();
      const { rows: pages } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
      await sql.raw(`pragma max_page_count = ${pages[0]!.page_count + 20}`).execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow();
      expect(await rows()).toEqual({ tables: [], items: [{ id: 5 }, { id: 9 }], activities: 200 });
      await sql.raw('pragma max_page_count = 1073741823').execute(db);
      expect((await migrateToLatest(db))[0]).toBe('20261127090000_item_ids_never_reused');
      expect(await rows()).toEqual({ tables: [], items: [{ id: 5 }, { id: 9 }], activities: 200 });
    });
  });
});
