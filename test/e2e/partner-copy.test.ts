import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindPlaces } from '../helpers/kind-folders.js';
import { copyProject, expectScriptPasses, expectTestsPass, npmScript, PROJECT_ROOT } from '../helpers/project-copy.js';

/**
 * A partner's first changes, made in a copy of the app as README's "Adapting this app" tells them:
 * remove a kind, add a field to a kind they keep, add a kind of their own. One copy takes all three
 * (each copy costs a typecheck, a lint and a test run of minutes).
 */

/**
 * What a partner deletes to remove the nutrition kind: its four folders (src/, views/, test/ and
 * test/e2e/ nutrition), and this test, which starts from the kinds this app comes with.
 */
const NUTRITION_FILES = [...kindPlaces('nutrition'), 'test/e2e/partner-copy.test.ts'];

/** Replaces `from` with `to` in the copy's `file`, expecting `from` to be there once. */
function edit(copy: string, file: string, from: string, to: string): void {
  const text = readFileSync(join(copy, file), 'utf8');
  expect(text.split(from), `${file} contains ${JSON.stringify(from)} once`).toHaveLength(2);
  writeFileSync(join(copy, file), text.replace(from, to));
}

/** Deletes the kind's files and its line in src/kinds.ts. */
function removeNutrition(copy: string): void {
  for (const path of NUTRITION_FILES) rmSync(join(copy, path), { recursive: true });
  edit(copy, 'src/kinds.ts', "import { nutrition } from './nutrition/index.js';\n", '');
  edit(copy, 'src/kinds.ts', '[nutrition, ', '[');
}

const DECLARATION = 'src/wellness/wellness.fields.ts';
const MIGRATION = 'src/wellness/migrations/20991231000000_wellness_add_body_fat.ts';

/** A measurement the interface document does not show of a wellness record, so it is sent inside rawJson. */
const ENTRY = `  bodyFatPercent: {
    column: 'body_fat_percent',
    label: 'Body fat (%)',
    words: 'body fat',
    unit: 'percent',
    min: 1,
    max: 70,
    integer: false,
    sent: 'rawJson',
  },
`;

const MIGRATION_TEXT = `import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wellness_days').addColumn('body_fat_percent', 'real').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wellness_days').dropColumn('body_fat_percent').execute();
}
`;

/** The field's two files: its line in the declaration and one migration. */
function addMeasurement(copy: string): void {
  const declaration = readFileSync(join(copy, DECLARATION), 'utf8');
  const end = declaration.lastIndexOf('});');
  expect(end, `${DECLARATION} ends its declaration with "});"`).toBeGreaterThan(0);
  writeFileSync(join(copy, DECLARATION), declaration.slice(0, end) + ENTRY + declaration.slice(end));
  writeFileSync(join(copy, MIGRATION), MIGRATION_TEXT);
}

/** A kind that exists only here: the water a person drinks each day, sent to the service as a day of nutrition. */
const HYDRATION_FIXTURE = join(PROJECT_ROOT, 'test/e2e/fixtures/hydration-kind');
const HYDRATION_TEST = 'hydration-sync.test.ts';

/** Copies the fixture's folder to src/hydration/ (its test to test/hydration/) and lists the kind in src/kinds.ts. */
function addHydration(copy: string): void {
  cpSync(HYDRATION_FIXTURE, join(copy, 'src/hydration'), { recursive: true, filter: (source) => !source.endsWith(HYDRATION_TEST) });
  cpSync(join(HYDRATION_FIXTURE, HYDRATION_TEST), join(copy, 'test/hydration', HYDRATION_TEST));
  edit(copy, 'src/kinds.ts', 'import type { Kind', "import { hydration } from './hydration/index.js';\nimport type { Kind");
  edit(copy, 'src/kinds.ts', ', workouts];', ', workouts, hydration];');
}

/** Expects `npm run fields` in the copy to print `row` in its tables. */
async function expectFieldListed(copy: string, row: string): Promise<void> {
  expect((await npmScript(copy, 'fields')).stdout).toContain(row);
}

/**
 * The copy's tests run after all three changes: those of the field (its checks, the wellness routes,
 * pages and sync), those that drive no kind by name or the first registered one (they must pass
 * whichever kinds remain), and the new kind's own.
 */
const TESTS_OF_THE_COPY = [
  'test/docs.test.ts',
  'test/db/migrate.test.ts',
  'test/wellness/wellness.fields.test.ts',
  'test/wellness/wellness.api.test.ts',
  'test/wellness/wellness.pages.test.ts',
  'test/e2e/wellness/wellness-sync.test.ts',
  'test/sync/lane-workers.test.ts',
  'test/e2e/redis-flushed.test.ts',
  `test/hydration/${HYDRATION_TEST}`,
];

describe('a partner adapting a copy of the app', () => {
  it('removes nutrition, adds a wellness measurement and a kind of its own: the app compiles, lints, lists the field and passes its tests', async () => {
    const copy = copyProject('athlete-sync-partner-');

    removeNutrition(copy);
    // The kind's settings leave the documented table with it.
    await expectScriptPasses(copy, 'settings', ['--write']);

    addMeasurement(copy);
    addHydration(copy);
    await Promise.all([
      // One typecheck for the three changes: the field and the kind only add, so cannot hide what removing a kind broke.
      expectScriptPasses(copy, 'typecheck'),
      expectScriptPasses(copy, 'lint'),
      expectFieldListed(copy, '| `bodyFatPercent` | percent | 1 | 70 | no | rawJson |'),
    ]);
    // After the checks, not beside them: some of these tests time what they drive.
    await expectTestsPass(copy, TESTS_OF_THE_COPY);
  }, 900_000);
});
