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

const API_DOC = 'docs/api.md';
const API_DOC_ROW = '| `hydrationMl` | millilitres | 0 | 10000 | yes | rawJson |\n';

/** The partner's change, file by file: the declaration, one migration, and its row in the API document's table. */
function adaptTemplate(copy: string): string[] {
  const declaration = readFileSync(join(copy, DECLARATION), 'utf8');
  const end = declaration.lastIndexOf('});');
  expect(end, `${DECLARATION} ends its declaration with "});"`).toBeGreaterThan(0);
  writeFileSync(join(copy, DECLARATION), declaration.slice(0, end) + ENTRY + declaration.slice(end));
  writeFileSync(join(copy, MIGRATION), MIGRATION_TEXT);
  const apiDoc = readFileSync(join(copy, API_DOC), 'utf8');
  const lastRow = apiDoc.indexOf('\n', apiDoc.indexOf('| `vo2max` |')) + 1;
  expect(lastRow, `${API_DOC}'s table of wellness measurements has vo2max's row`).toBeGreaterThan(0);
  writeFileSync(join(copy, API_DOC), apiDoc.slice(0, lastRow) + API_DOC_ROW + apiDoc.slice(lastRow));
  return [DECLARATION, MIGRATION, API_DOC];
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
  it('changes the declaration, one migration and its row in docs/api.md: the app compiles, and its checks and wellness tests pass untouched', async () => {
    const copy = temporaryFolder('athlete-sync-partner-');
    cpSync(ROOT, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split('/')[0]!) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    expect(adaptTemplate(copy)).toEqual([DECLARATION, MIGRATION, API_DOC]);

    const typecheck = await run('npm', ['run', '--silent', 'typecheck'], copyEnvironment(), { cwd: copy });
    expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);

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
