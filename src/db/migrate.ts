import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FileMigrationProvider, Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Config } from '../config.js';
import { StartupError } from '../errors.js';
import { createDb, type Db } from './database.js';
import { MIGRATION_FOLDERS, type MigrationFolders } from './migration-folders.js';
import { currentSchema } from './portable.js';

export class PendingMigrationsError extends StartupError {
  override name = 'PendingMigrationsError';
  constructor(readonly pending: string[]) {
    super(`The database has ${pending.length} pending migration(s) (${pending.join(', ')}): run \`npm run migrate\` first.`);
  }
}

/**
 * The core's migrations and each kind's, as one list that Kysely applies in the order of the names
 * (docs/architecture.md, "Migrations"). A name is unique across the folders, and no kind's
 * migration sorts before the core's first one, which creates the tables every kind's tables refer
 * to. A kind's migrations may be pending before others already applied: a kind added to a running
 * app brings its tables with it.
 */
function migrationsOf({ core, kinds }: MigrationFolders): MigrationProvider {
  return {
    async getMigrations() {
      const coreMigrations = await migrationsIn(core);
      const coreFirst = Object.keys(coreMigrations).sort()[0] ?? '';
      const all = { ...coreMigrations };
      for (const folder of kinds) {
        for (const [name, migration] of Object.entries(await migrationsIn(folder))) {
          if (name in all) throw new Error(`Two migrations are named ${name}: the one in ${folder} needs a name of its own.`);
          if (name < coreFirst)
            throw new Error(`The migration ${name} in ${folder} sorts before the core's first migration, ${coreFirst}.`);
          all[name] = migration;
        }
      }
      return all;
    },
  };
}

function migrationsIn(migrationFolder: string): Promise<Record<string, Migration>> {
  return new FileMigrationProvider({ fs, path, migrationFolder }).getMigrations();
}

/**
 * The database as `npm run migrate` opens it: no statement timeout, since a migration may index or
 * count a launch's whole outbox once (postgres-dialect.ts, StatementLimit).
 */
export function openForMigrations(database: Config['database']): Db {
  return createDb(database, 'unbounded');
}

// Migrations see the schema as it was when each was written, so they take Kysely<any>.
export async function createMigrator(db: Kysely<any>, folders: MigrationFolders = MIGRATION_FOLDERS): Promise<Migrator> {
  return new Migrator({
    db,
    provider: migrationsOf(folders),
    allowUnorderedMigrations: true,
    // Kysely otherwise takes a migration table in any schema of the database for its own.
    migrationTableSchema: await currentSchema(db),
  });
}

/** Applies every pending migration in order; returns the names applied. */
export async function migrateToLatest(db: Kysely<any>, folders?: MigrationFolders): Promise<string[]> {
  const { error, results = [] } = await (await createMigrator(db, folders)).migrateToLatest();
  // Whatever the failing migration threw, handed on as it came.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (error) throw error;
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

export async function pendingMigrations(db: Kysely<any>, folders?: MigrationFolders): Promise<string[]> {
  const migrations = await (await createMigrator(db, folders)).getMigrations();
  return migrations.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/** The web and the workers never change the schema themselves: they refuse to run on an old one. */
export async function assertMigrated(db: Kysely<any>, folders?: MigrationFolders): Promise<void> {
  const pending = await pendingMigrations(db, folders);
  if (pending.length > 0) throw new PendingMigrationsError(pending);
}
