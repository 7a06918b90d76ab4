import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { run } from '../helpers/processes.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the copy leaves out: installed, built or run-time folders (node_modules is linked instead). */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'data', 'test-output', 'coverage']);

const DECLARATION = 'src/wellness/wellness.fields.ts';
const MIGRATION = 'migrations/20991231000000_add_hydration.ts';

/** A hydration tracker's daily water: section 2.3 does not show it, so it is sent inside rawJson. */
const ENTRY = `  hydrationMl: { column: 'hydration_ml', label: 'Water (ml)', words: 'water', unit: 'millilitres', min: 0, max: 10_000, integer: true, sent: 'rawJson' },\n`;

const MIGRATION_TEXT = `import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wellness_days').addColumn('hydration_ml', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wellness_days').dropColumn('hydration_ml').execute();
}
`;

/** The partner's change, file by file: the declaration and one migration. */
function adaptTemplate(copy: string): string[] {
  const declaration = readFileSync(join(copy, DECLARATION), 'utf8');
  const end = declaration.lastIndexOf('});');
  expect(end, `${DECLARATION} ends its declaration with "});"`).toBeGreaterThan(0);
  writeFileSync(join(copy, DECLARATION), declaration.slice(0, end) + ENTRY + declaration.slice(end));
  writeFileSync(join(copy, MIGRATION), MIGRATION_TEXT);
  return [DECLARATION, MIGRATION];
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

describe('a partner adding a wellness measurement to a copy of the app', () => {
  it('changes the declaration and one migration: the app compiles, lists the field, and its checks and wellness tests pass untouched', async () => {
    const copy = temporaryFolder('athlete-sync-partner-');
    cpSync(ROOT, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split('/')[0]!) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    expect(adaptTemplate(copy)).toEqual([DECLARATION, MIGRATION]);

    const typecheck = await run('npm', ['run', '--silent', 'typecheck'], copyEnvironment(), { cwd: copy });
    expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);

    const fields = await run('npm', ['run', '--silent', 'fields'], copyEnvironment(), { cwd: copy });
    expect(fields.stdout).toContain('| `hydrationMl` | millilitres | 0 | 10000 | yes | rawJson |');

    const tests = [
      'test/docs.test.ts',
      'test/db/migrate.test.ts',
      'test/wellness/wellness.fields.test.ts',
      'test/wellness/wellness.api.test.ts',
      'test/wellness/wellness.pages.test.ts',
      'test/e2e/wellness-sync.test.ts',
    ];
    const vitest = await run(join(copy, 'node_modules/.bin/vitest'), ['run', ...tests], copyEnvironment(), { cwd: copy });
    expect(vitest.code, vitest.stdout.slice(-4000) + vitest.stderr.slice(-4000)).toBe(0);
    expect(vitest.stdout).toMatch(new RegExp(`Test Files +${tests.length} passed`));
  }, 600_000);
});
