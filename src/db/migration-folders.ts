import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the migrator finds the migrations (docs/architecture.md, "Migrations"). */
export interface MigrationFolders {
  /** The tables every kind relies on; its first migration's name sorts before every kind's. */
  core: string;
  /** Each kind's folder, whose migrations create and change that kind's own tables only. */
  kinds: readonly string[];
}

/** A folder found from here, both in the sources and in dist/, which mirrors them. */
function folder(relativePath: string): string {
  return fileURLToPath(new URL(relativePath, import.meta.url));
}

/**
 * Every `migrations/` folder of a folder of src/ (or of dist/'s copy of it), in the order of the
 * names: a kind's tables come with its folder, and go with it, without a list naming the kinds.
 */
function kindMigrationFolders(): string[] {
  const source = folder('..');
  return readdirSync(source, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(source, entry.name, 'migrations'))
    .filter((migrations) => existsSync(migrations))
    .sort();
}

export const MIGRATION_FOLDERS: MigrationFolders = { core: folder('../../migrations'), kinds: kindMigrationFolders() };
