import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci --omit=dev` must install what production runs and no more: every package that the
 * production entry points import, directly or through the app's own modules, is a dependency,
 * and every dependency is imported by them. Packages only the sandbox, the demo or the tests use
 * are devDependencies.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

/** The scripts an operator runs in production; the others (demo, sandbox, test) are for development. */
const PRODUCTION_SCRIPTS = ['start', 'worker', 'migrate', 'resync', 'reseal'];
/** Runs the TypeScript entry points: needed by the scripts themselves, never imported. */
const RUNNERS = ['tsx'];

const IMPORT_SPECIFIERS = [/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/g, /(?:^|\n)\s*import\s+'([^']+)'/g];

function entryPoints(): string[] {
  const scripts = PRODUCTION_SCRIPTS.filter((name) => name in packageJson.scripts).map((name) => {
    const file = packageJson.scripts[name]!.match(/src\/\S+\.ts/)?.[0];
    if (!file) throw new Error(`npm script ${name} names no src/*.ts entry point`);
    return join(ROOT, file);
  });
  // Kysely's migrator imports every migration at run time.
  const migrations = readdirSync(join(ROOT, 'migrations')).map((file) => join(ROOT, 'migrations', file));
  return [...scripts, ...migrations];
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
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
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
    const unused = Object.keys(packageJson.dependencies).filter((name) => !imported.has(name) && !RUNNERS.includes(name));
    expect(unused).toEqual([]);
  });
});
