import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, type Kysely } from 'kysely';
import { StartupError } from '../errors.js';
import { currentSchema } from './portable.js';

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

export class PendingMigrationsError extends StartupError {
  override name = 'PendingMigrationsError';
  constructor(readonly pending: string[]) {
    super(`The database has ${pending.length} pending migration(s) (${pending.join(', ')}): run \`npm run migrate\` first.`);
  }
}

// Migrations see the schema as it was when each was written, so they take Kysely<any>.
export async function createMigrator(db: Kysely<any>): Promise<Migrator> {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_FOLDER }),
    // Kysely otherwise takes a migration table in any schema of the database for its own.
    migrationTableSchema: await currentSchema(db),
  });
}

/** Applies every pending migration in order; returns the names applied. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const { error, results = [] } = await (await createMigrator(db)).migrateToLatest();
  // Whatever the failing migration threw, handed on as it came.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  if (error) throw error;
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrations = await (await createMigrator(db)).getMigrations();
  return migrations.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/** The web and the workers never change the schema themselves: they refuse to run on an old one. */
export async function assertMigrated(db: Kysely<any>): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) throw new PendingMigrationsError(pending);
}
