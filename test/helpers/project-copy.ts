import { cpSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';
import { run, type Finished } from './processes.js';
import { temporaryFolder } from './temporary-folders.js';

/** This project's folder, the one a copy is made of. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a copy leaves out: installed, built or run-time folders (node_modules is linked instead). */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'data', 'test-output', 'coverage']);

/** A copy of the project in a temporary folder, as a partner starts from it, its node_modules linked to this one's. */
export function copyProject(prefix: string): string {
  const copy = temporaryFolder(prefix);
  cpSync(PROJECT_ROOT, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(PROJECT_ROOT, source).split('/')[0]!) });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

/**
 * The environment of a command run in the copy: this run's Redis, under the copy's own key prefix;
 * its databases on SQLite only (a Postgres database per vitest worker would be this run's too).
 */
function copyEnvironment(): NodeJS.ProcessEnv {
  const {
    TEST_POSTGRES_URL: _postgres,
    VITEST: _vitest,
    VITEST_POOL_ID: _pool,
    VITEST_WORKER_ID: _worker,
    NODE_ENV: _nodeEnv,
    ...env
  } = process.env;
  return { ...env, REDIS_URL: inject('redisUrl'), NO_COLOR: '1' };
}

/** Runs `npm run <script> -- <args>` in the copy; returns its output. */
export async function npmScript(copy: string, script: string, args: readonly string[] = []): Promise<Finished> {
  return run('npm', ['run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])], copyEnvironment(), { cwd: copy });
}

/** Runs an npm script in the copy and expects it to succeed, showing its output when it does not. */
export async function expectScriptPasses(copy: string, script: string, args: readonly string[] = []): Promise<void> {
  const result = await npmScript(copy, script, args);
  expect(result.code, `npm run ${script}:\n${result.stdout.slice(-4000)}${result.stderr.slice(-4000)}`).toBe(0);
}

/** Runs the copy's own tests `files` (on SQLite) and expects every file to pass. */
export async function expectTestsPass(copy: string, files: readonly string[]): Promise<void> {
  const vitest = await run(join(copy, 'node_modules/.bin/vitest'), ['run', '--project', 'sqlite', ...files], copyEnvironment(), {
    cwd: copy,
  });
  expect(vitest.code, vitest.stdout.slice(-4000) + vitest.stderr.slice(-4000)).toBe(0);
  expect(vitest.stdout).toMatch(new RegExp(`Test Files +${files.length} passed`));
}
