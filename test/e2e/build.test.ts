import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { stylesheetLinks } from '../helpers/http-client.js';
import { run, start } from '../helpers/processes.js';
import { minimalAppEnvironment } from '../helpers/minimal-environment.js';

/**
 * Each test builds a copy of the project, as a fresh clone would: the project's own dist/ is in
 * use by the test files that run the production npm scripts. The two groups below run side by
 * side (describe.concurrent), each on its own copy; a build is mostly tsc's time.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHECKED_IN = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', 'migrations', 'views'];
/** What the compiled processes do not need: dist/ runs without them. */
const SOURCES = ['src', 'migrations', 'views'];
const BUILD_MS = 120_000;
/** What only development runs, from source through tsx: the demo, bench and chaos, the sandbox and its views. */
const DEV_TOOLING = /^(src\/(dev|sandbox)(\/|$)|src\/demo\.|views\/sandbox(\/|$))/;

const clones: string[] = [];
afterAll(() => {
  for (const clone of clones) rmSync(clone, { recursive: true });
});

function freshClone(files = CHECKED_IN, { withPackages = true } = {}): string {
  const clone = mkdtempSync(join(tmpdir(), 'athlete-sync-build-'));
  clones.push(clone);
  for (const file of files) cpSync(join(ROOT, file), join(clone, file), { recursive: true });
  if (withPackages) symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  return clone;
}

function npmRun(clone: string, script: string, processEnv: NodeJS.ProcessEnv = minimalAppEnvironment()) {
  return run('npm', ['run', '--silent', '--prefix', clone, script], processEnv);
}

describe.concurrent('npm run build', () => {
  let clone: string;
  let processEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    clone = freshClone();
    const build = await npmRun(clone, 'build');
    expect(build).toMatchObject({ code: 0, stderr: '' });
    for (const source of SOURCES) rmSync(join(clone, source), { recursive: true });
    processEnv = {
      ...minimalAppEnvironment(),
      DATABASE_URL: `sqlite:${join(clone, 'app.db')}`,
      PORT: String(await freePort()),
      REDIS_URL: inject('redisUrl'),
    };
  }, BUILD_MS);

  it('holds what production runs and none of the dev tools', () => {
    const built = readdirSync(join(clone, 'dist'), { recursive: true, encoding: 'utf8' });
    expect(built).toEqual(expect.arrayContaining(['src/server.js', 'src/worker.js', 'views/layout.eta']));
    expect(built.filter((path) => DEV_TOOLING.test(path))).toEqual([]);
  });

  // In order: the web and the worker start only on a migrated database.
  it.sequential('compiles the migrations, which plain node applies', async () => {
    const migrate = await run(process.execPath, [join(clone, 'dist/src/migrate.js')], processEnv);
    expect(migrate.stdout).toMatch(/^Applied: \d+_core_baseline, \d+_[a-z]+_baseline/);
  });

  it.sequential('compiles a web process that plain node runs: it answers /healthz and renders views/', async () => {
    const web = start(process.execPath, [join(clone, 'dist/src/server.js')], processEnv);
    try {
      await web.waitForOutput(/web listening/);
      const origin = `http://127.0.0.1:${processEnv.PORT}`;
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      const signIn = await fetch(`${origin}/login`);
      expect(signIn.status).toBe(200);
      const page = await signIn.text();
      expect(page).toContain('athlete-sync');
      const stylesheets = stylesheetLinks(page);
      expect(stylesheets).toContain('/assets/style.css');
      for (const href of stylesheets) expect((await fetch(`${origin}${href}`)).status, href).toBe(200);
    } finally {
      await web.stop();
    }
  });

  it.sequential('compiles a worker that plain node runs', async () => {
    const worker = start(process.execPath, [join(clone, 'dist/src/worker.js')], processEnv);
    try {
      await worker.waitForOutput(/worker ready/);
    } finally {
      await worker.stop();
    }
  });
});

describe.concurrent('the production npm scripts', () => {
  it(
    'build dist/ first when it is missing or older than the sources, and only then',
    async () => {
      const clone = freshClone();
      const processEnv = { ...minimalAppEnvironment(), DATABASE_URL: `sqlite:${join(clone, 'app.db')}` };
      const builtAt = () => statSync(join(clone, 'dist/.built')).mtimeMs;

      const first = await npmRun(clone, 'migrate', processEnv);
      expect(first).toMatchObject({ code: 0, stderr: 'dist/ is missing: building it.\n' });
      expect(first.stdout).toMatch(/^Applied: /);
      const firstBuild = builtAt();

      expect(await npmRun(clone, 'migrate', processEnv)).toMatchObject({ code: 0, stderr: '', stdout: 'The database is up to date.\n' });
      expect(builtAt()).toBe(firstBuild);

      utimesSync(join(clone, 'views/layout.eta'), new Date(), new Date());
      expect(await npmRun(clone, 'migrate', processEnv)).toMatchObject({ code: 0, stderr: 'dist/ is older than views: building it.\n' });
      expect(builtAt()).toBeGreaterThan(firstBuild);
    },
    2 * BUILD_MS,
  );

  it('stop with one line when dist/ is missing and TypeScript is not installed (npm ci --omit=dev)', async () => {
    const clone = freshClone(['package.json', 'scripts'], { withPackages: false });
    const result = await npmRun(clone, 'start');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'dist/ is missing, and TypeScript (a devDependency) is not installed to build it: build dist/ where devDependencies are installed (docs/production.md, Production builds).\n',
    );
    expect(existsSync(join(clone, 'dist'))).toBe(false);
  });
});
