import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { kindFolders } from './test/helpers/kind-folders.js';
import { LongFilesFirst } from './test/long-files-first.js';

// A zone far from UTC (+14:00) for the test processes, so server-local time cannot pass for UTC or a user's zone.
process.env.TZ = 'Pacific/Kiritimati';

/**
 * Every test runs on SQLite. With TEST_POSTGRES_URL set (e.g. postgres://postgres@127.0.0.1:5432/test)
 * the tests that touch the database run on Postgres too, each stack in a schema of its own there
 * (test/helpers/database.ts).
 */
const postgresUrl = process.env.TEST_POSTGRES_URL;

/** A kind's files that run only once copied into src/ of a copy of the app (test/e2e/partner-copy.test.ts). */
const FIXTURE_KIND = 'test/e2e/fixtures/hydration-kind/**';

/** The kinds' folders (src/kinds.ts): each kind's tests and end-to-end tests run on Postgres too. */
const KIND_FOLDERS = kindFolders(fileURLToPath(new URL('.', import.meta.url)));

const DATABASE_TESTS = [
  'test/{accounts,connections,dashboard,db,notices,sync,web}/**/*.test.ts',
  'test/e2e/{fresh-flood,multi-host,read-only-store,shutdown,token-canary,token-key-rotation,token-single-flight,worker-stopped-mid-refresh,worker-takeover}.test.ts',
  ...KIND_FOLDERS.flatMap((kind) => [`test/${kind}/**/*.test.ts`, `test/e2e/${kind}/*.test.ts`]),
];
/**
 * In those folders, the files whose subject is not the database: pure functions, the sync queues'
 * job options, the session store's touches, each person's counts of workouts lists and of changes of now (Redis alone), the
 * fuzz tests of the API's input (hundreds of requests each), and the pages in a browser.
 */
const NOT_ABOUT_THE_DATABASE = [
  'test/**/*.browser.test.ts',
  'test/**/*.fuzz.test.ts',
  'test/accounts/password.test.ts',
  'test/activities/fit-file.test.ts',
  'test/activities/fit-file-checker.test.ts',
  'test/activities/receive-upload.test.ts',
  'test/activities/upload-folder.test.ts',
  'test/activities/upload-slots.test.ts',
  'test/connections/connection-standing.test.ts',
  'test/connections/pending-connects.test.ts',
  'test/connections/token-crypto.test.ts',
  'test/nutrition/local-date.test.ts',
  'test/nutrition/day-totals.test.ts',
  'test/sync/fresh-allowance.test.ts',
  'test/sync/queue.test.ts',
  'test/sync/sync-words.test.ts',
  'test/charts/day-chart.test.ts',
  'test/fields/form-numbers.test.ts',
  'test/web/locale.test.ts',
  'test/web/session-touches.test.ts',
  'test/wellness/wellness-record.test.ts',
  'test/workouts/read-limits.test.ts',
  'test/workouts/read-with-retries.test.ts',
  'test/workouts/workout-display.test.ts',
  'test/workouts/workout-listing.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/redis-keys.setup.ts', 'test/temporary-folders.setup.ts'],
    testTimeout: 20_000,
    // Three files at a time, whatever the machine: most of a file's time is spent waiting on the
    // processes, timers and sockets it drives (two at a time kept two cores only about half busy).
    // Each file has its own Redis prefix and database (a Postgres database per worker, see
    // test/helpers/database.ts), so files never see each other's data.
    maxWorkers: 3,
    sequence: { sequencer: LongFilesFirst },
    // A worker's files share its modules rather than each importing the app and its libraries anew,
    // which was most of a short file's time. So no test file keeps state in a module for the next:
    // helpers start each file afresh (test/helpers/redis-keys.ts) and no test changes a global.
    isolate: false,
    hookTimeout: 60_000,
    // Kysely's migrator imports migration files at run time; inlining lets Vite load the .ts ones.
    server: { deps: { inline: ['kysely'] } },
    projects: [
      // Each project names its files: `extends` would add the root's include to its own.
      {
        extends: true as const,
        // The fixture kind's test runs only once copied into a copy of the app (test/e2e/partner-copy.test.ts).
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, FIXTURE_KIND],
          provide: { testDatabase: { kind: 'sqlite' } },
        },
      },
      ...(postgresUrl === undefined
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: DATABASE_TESTS,
                exclude: NOT_ABOUT_THE_DATABASE,
                provide: { testDatabase: { kind: 'postgres' as const, url: postgresUrl } },
              },
            },
          ]),
    ],
  },
});
