import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIGRATION_FOLDERS } from '../src/db/migration-folders.js';

/**
 * `npm ci --omit=dev` must install what production runs and no more: every package that the
 * production scripts import, directly or through the app's own modules, is a dependency, and every
 * dependency is imported by them. Packages only the build, the sandbox, the demo or the tests use
 * are devDependencies. It reads the compiled JavaScript in dist/ (built by the global setup),
 * which is what production runs: type-only imports are gone from it.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

/** The scripts an operator runs in production; the others (demo, sandbox, test) are for development. */
const PRODUCTION_SCRIPTS = ['start', 'worker', 'migrate', 'resync', 'reseal'];

const IMPORT_SPECIFIERS = [
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/g,
  /(?:^|\n)\s*import\s+'([^']+)'/g,
  // What a process loads only when first needed (Bull Board, the FIT SDK) is still production's;
  // not code in a string (the .fit check thread's start under tsx, fit-file-checker.ts).
  /(?<![`'"])\bimport\('([^']+)'\)/g,
];

/**
 * What each production script, and the build check before it, runs: one file, with plain node and
 * no runner, or `exec sh scripts/run.sh <name>`, which runs dist/src/<name>.js with plain node.
 */
function scriptFiles(): string[] {
  const names = PRODUCTION_SCRIPTS.flatMap((name) => [`pre${name}`, name]).filter((name) => name in packageJson.scripts);
  return names.map((name) => {
    const script = packageJson.scripts[name]!;
    const compiled = script.match(/^exec sh scripts\/run\.sh (\w+)$/)?.[1];
    const file = script.match(/^node (\S+\.js)\b/)?.[1] ?? (compiled && `dist/src/${compiled}.js`);
    if (!file) throw new Error(`npm script ${name} does not run a .js file with plain node`);
    return join(ROOT, file);
  });
}

function entryPoints(): string[] {
  // Kysely's migrator imports every compiled migration at run time, the core's and each kind's.
  const migrationFolders = [MIGRATION_FOLDERS.core, ...MIGRATION_FOLDERS.kinds].map((folder) => join(ROOT, 'dist', relative(ROOT, folder)));
  return [
    ...scriptFiles(),
    ...migrationFolders.flatMap((folder) =>
      readdirSync(folder)
        .filter((file) => file.endsWith('.js'))
        .map((file) => join(folder, file)),
    ),
  ];
}

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return IMPORT_SPECIFIERS.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The packages reachable from `entries` through the project's own modules. */
function packagesImportedFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) packages.add(packageName(specifier));
    }
  }
  return packages;
}

describe('production dependencies', () => {
  const imported = packagesImportedFrom(entryPoints());

  it('finds the entry points it checks', () => {
    expect(entryPoints().filter((file) => !existsSync(file))).toEqual([]);
    expect(imported.size).toBeGreaterThan(5);
  });

  it('include every package the production entry points import', () => {
    const missing = [...imported].filter((name) => !(name in packageJson.dependencies));
    expect(missing).toEqual([]);
  });

  it('include nothing that production does not use', () => {
    const unused = Object.keys(packageJson.dependencies).filter((name) => !imported.has(name));
    expect(unused).toEqual([]);
  });
});
