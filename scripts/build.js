import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run build`: compiles src/ and migrations/ into dist/ (tsconfig.build.json) and copies views/
 * beside them. dist/ mirrors the project, so a module finds views/ and the migrations at the same
 * relative path compiled as from source, and dist/ runs without the sources. The dev tools (the
 * demo, bench and chaos in src/dev/, the sandbox with its views) run from source through tsx and
 * are left out: dist/ holds what production runs.
 *
 * With `--if-stale` (before every production command, package.json's pre-scripts) it builds only
 * when dist/ is missing or older than its sources: a fresh clone runs as the README says, and a
 * restart does not wait for a build. Plain JavaScript, since it runs before anything is compiled.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
/** Written last, so a build that stopped half-way counts as missing. */
const BUILT_MARK = join(DIST, '.built');
const SOURCES = ['src', 'migrations', 'views', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * The newest change under `path`; a folder's own time covers files deleted or renamed in it.
 * @param {string} path
 */
function lastChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  const entries = readdirSync(path, { recursive: true, encoding: 'utf8' }).map((entry) => statSync(join(path, entry)).mtimeMs);
  return Math.max(stats.mtimeMs, ...entries);
}

/** Why dist/ must be built, or undefined when it is up to date. */
function staleness() {
  if (!existsSync(BUILT_MARK)) return 'dist/ is missing';
  const builtAt = statSync(BUILT_MARK).mtimeMs;
  // A production image may hold dist/ without the sources: nothing there is newer.
  const present = SOURCES.filter((source) => existsSync(join(ROOT, source)));
  const changed = present.filter((source) => lastChange(join(ROOT, source)) > builtAt);
  return changed.length > 0 ? `dist/ is older than ${changed.join(', ')}` : undefined;
}

/**
 * TypeScript is a devDependency: absent after `npm ci --omit=dev`. TypeScript 7 is installed as
 * `@typescript/native`: the name `typescript` holds TypeScript 6, whose compiler API typescript-eslint needs.
 */
function findCompiler() {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@typescript/native/package.json')), 'bin', 'tsc');
  } catch {
    return undefined;
  }
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(message);
  process.exit(1);
}

/** @param {string} compiler */
function build(compiler) {
  // From scratch: a source deleted since the last build (a migration, say) must not live on in dist/.
  rmSync(DIST, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [compiler, '--project', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) fail('tsc failed: dist/ is not built.');
  const sandboxViews = join(ROOT, 'views', 'sandbox');
  cpSync(join(ROOT, 'views'), join(DIST, 'views'), { recursive: true, filter: (source) => source !== sandboxViews });
  writeFileSync(BUILT_MARK, '');
}

if (!process.argv.includes('--if-stale')) {
  build(findCompiler() ?? fail('TypeScript (a devDependency) is not installed: `npm ci` installs it.'));
} else {
  const reason = staleness();
  if (reason !== undefined) {
    const compiler =
      findCompiler() ??
      fail(
        `${reason}, and TypeScript (a devDependency) is not installed to build it: build dist/ where devDependencies are installed (docs/production.md, Production builds).`,
      );
    console.error(`${reason}: building it.`);
    build(compiler);
  }
}
