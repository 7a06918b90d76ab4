import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database.js';
import { PendingMigrationsError, assertMigrated, createMigrator, migrateToLatest, pendingMigrations } from '../../src/db/migrate.js';
import { MIGRATION_FOLDERS, type MigrationFolders } from '../../src/db/migration-folders.js';
import { createTestDatabase, openDb, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';

const CORE_BASELINE = '20261204090000_core_baseline';

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
    expect(pending).toContain(CORE_BASELINE);
    const refusal = assertMigrated(db);
    await expect(refusal).rejects.toBeInstanceOf(PendingMigrationsError);
    await expect(refusal).rejects.toThrow('run `npm run migrate`');
  });

  it('applies pending migrations in order, then none are pending and the schema exists', async () => {
    db = await freshDb();
    const applied = await migrateToLatest(db);
    expect(applied).toEqual([...applied].sort());
    expect(applied).toContain(CORE_BASELINE);
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

  it("creates the core's baseline tables before any kind's table", async () => {
    db = await freshDb();
    const migrator = await createMigrator(db);
    const coreOnly = await createMigrator(db, { ...MIGRATION_FOLDERS, kinds: [] });
    const core = new Set((await coreOnly.getMigrations()).map((migration) => migration.name));
    const steps: Array<{ core: boolean; created: string[] }> = [];
    let before = await tableNames(db);
    for (;;) {
      const { error, results = [] } = await migrator.migrateUp();
      expect(error).toBeUndefined();
      if (results.length === 0) break;
      const after = await tableNames(db);
      steps.push({ core: core.has(results[0]!.migrationName), created: after.filter((table) => !before.includes(table)) });
      before = after;
    }
    const firstKindTable = steps.findIndex((step) => !step.core && step.created.length > 0);
    expect(steps[0]).toMatchObject({ core: true, created: expect.arrayContaining(['users']) });
    expect(firstKindTable).toBeGreaterThan(0);
  });

  describe.each(MIGRATION_FOLDERS.kinds.map((folder) => [basename(join(folder, '..')), folder]))(
    "without %s's migrations",
    (_kind, left) => {
      const folders: MigrationFolders = { ...MIGRATION_FOLDERS, kinds: MIGRATION_FOLDERS.kinds.filter((folder) => folder !== left) };

      it('the rest of the schema is complete and works, and adding the kind back creates its tables', async () => {
        db = await freshDb();
        await migrateToLatest(db, folders);
        await expect(assertMigrated(db, folders)).resolves.toBeUndefined();
        const without = await tableNames(db);
        expect(without).toEqual(expect.arrayContaining(['users', 'connections', 'outbox', 'histories']));
        const { id } = await db
          .insertInto('users')
          .values({ email: 'a@example.com', password_hash: 'x', timezone: 'UTC', created_at: '2026-11-21T00:00:00Z' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('outbox')
          .values({ user_id: id, kind: 'nutrition', subject: '2026-03-10', version: 1, updated_at: 'x' })
          .execute();
        await db.deleteFrom('users').where('id', '=', id).execute();
        expect(await db.selectFrom('outbox').select('subject').execute()).toEqual([]);

        expect((await migrateToLatest(db)).length).toBeGreaterThan(0);
        const added = (await tableNames(db)).filter((table) => !without.includes(table));
        expect(added.length).toBeGreaterThan(0);
        await expect(assertMigrated(db)).resolves.toBeUndefined();
      });
    },
  );

  describe('refuses folders whose names do not sort as the rule says', () => {
    function folderOf(...names: string[]): string {
      const folder = join(temporaryFolder('athlete-sync-migrations-'), 'migrations');
      mkdirSync(folder);
      for (const name of names) writeFileSync(join(folder, `${name}.mjs`), 'export async function up() {}\n');
      return folder;
    }

    it('a name used in two folders', async () => {
      db = await freshDb();
      const folders = {
        core: folderOf('20260101000000_core_baseline'),
        kinds: [folderOf('20260102000000_a_baseline'), folderOf('20260102000000_a_baseline')],
      };
      await expect(migrateToLatest(db, folders)).rejects.toThrow(
        /Two migrations are named 20260102000000_a_baseline: the one in .* needs a name of its own/,
      );
    });

    it("a kind's migration that sorts before the core's first", async () => {
      db = await freshDb();
      const folders = { core: folderOf('20260101000000_core_baseline'), kinds: [folderOf('20251231000000_a_baseline')] };
      await expect(migrateToLatest(db, folders)).rejects.toThrow(
        'The migration 20251231000000_a_baseline in ' +
          folders.kinds[0] +
          " sorts before the core's first migration, 20260101000000_core_baseline.",
      );
      expect(await tableNames(db)).toEqual([]);
    });
  });
});

/** The test's own tables: on Postgres, those of its schema (the worker's database holds other tests' schemas). */
async function tableNames(db: Db): Promise<string[]> {
  const own = database.kind === 'postgres' ? database.schema : undefined;
  const tables = await db.introspection.getTables();
  return tables
    .filter((table) => own === undefined || table.schema === own)
    .map((table) => table.name)
    .sort();
}
