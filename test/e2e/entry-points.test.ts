import { writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { loadDatabaseConfig } from '../../src/config.js';
import { createDb } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { freePort } from '../../src/dev/free-port.js';
import { minimalAppEnvironment } from '../helpers/minimal-environment.js';
import { run, start } from '../helpers/processes.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';

/** This machine's IPv4 addresses other than loopback. */
function otherAddressesOfThisMachine(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
  return addresses.filter((entry) => entry.family === 'IPv4' && !entry.internal).map((entry) => entry.address);
}

function newDatabaseUrl(): string {
  return `sqlite:${join(temporaryFolder('athlete-sync-entry-'), 'app.db')}`;
}

/** A database already migrated, for the tests whose subject comes after that check; the processes fail before they write. */
let migratedDatabaseUrl: string;
beforeAll(async () => {
  migratedDatabaseUrl = newDatabaseUrl();
  const db = createDb(loadDatabaseConfig({ DATABASE_URL: migratedDatabaseUrl }));
  await migrateToLatest(db);
  await db.destroy();
});

/**
 * The tests run side by side (describe.concurrent): each starts processes of its own and mostly waits
 * for them. Node loading the app takes seconds on a busy machine, and longer with all of them at once.
 */
const BUSY = { timeout: 60_000 };

describe.concurrent.each([
  ['npm start', 'start'],
  ['npm run worker', 'worker'],
])('%s', BUSY, (_title, script) => {
  it('refuses a database with pending migrations and says to run npm run migrate', async () => {
    const result = await run('npm', ['run', '--silent', script], { ...minimalAppEnvironment(), DATABASE_URL: newDatabaseUrl() });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^The database has \d+ pending migration\(s\) .*run `npm run migrate` first\.$/);
  });

  it('stops with one line naming a missing setting', async () => {
    const env: NodeJS.ProcessEnv = { ...minimalAppEnvironment(), DATABASE_URL: newDatabaseUrl() };
    delete env.TOKEN_ENCRYPTION_KEY;
    const result = await run('npm', ['run', '--silent', script], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Invalid configuration: TOKEN_ENCRYPTION_KEY is required: 32 random bytes in base64 (create one with: openssl rand -base64 32)',
    );
  });
});

// The wait itself is timed in test/reach-at-start.test.ts; starting npm and node takes seconds on a busy machine.
const STARTUP_TIMEOUT_S = 2;

describe.concurrent('npm start and npm run worker with what they need out of reach', BUSY, () => {
  /** Runs the script and returns all it printed, and how long it took to exit 1. */
  async function failedStart(script: string, env: Record<string, string>): Promise<{ output: string; ms: number }> {
    const startedAt = Date.now();
    const settings = { ...minimalAppEnvironment(), STARTUP_TIMEOUT_S: String(STARTUP_TIMEOUT_S), ...env };
    const result = await run('npm', ['run', '--silent', script], settings);
    expect(result.code).toBe(1);
    return { output: (result.stdout + result.stderr).trim(), ms: Date.now() - startedAt };
  }

  it.each(['start', 'worker'])(
    'npm run %s waits STARTUP_TIMEOUT_S for Redis and Postgres, then exits 1 with one line naming what it could not reach; a bad SQLite path at once',
    async (script) => {
      const [redisPort, postgresPort] = [await freePort(), await freePort()];
      const notAFolder = join(temporaryFolder('athlete-sync-entry-'), 'a-file');
      writeFileSync(notAFolder, '');
      const [redis, postgres, sqlite] = await Promise.all([
        failedStart(script, { DATABASE_URL: migratedDatabaseUrl, REDIS_URL: `redis://:hunter2@127.0.0.1:${redisPort}` }),
        failedStart(script, { DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${postgresPort}/app`, REDIS_URL: inject('redisUrl') }),
        failedStart(script, { DATABASE_URL: `sqlite:${notAFolder}/data/app.db`, REDIS_URL: inject('redisUrl') }),
      ]);
      expect(redis.output).toBe(
        `Cannot reach Redis at redis://127.0.0.1:${redisPort} within 2 s (STARTUP_TIMEOUT_S): connect ECONNREFUSED 127.0.0.1:${redisPort}`,
      );
      expect(postgres.output).toBe(
        `Cannot reach the database at postgres://postgres@127.0.0.1:${postgresPort}/app within 2 s (STARTUP_TIMEOUT_S): connect ECONNREFUSED 127.0.0.1:${postgresPort}`,
      );
      for (const { ms } of [redis, postgres]) expect(ms).toBeGreaterThanOrEqual(STARTUP_TIMEOUT_S * 1000);
      expect(sqlite.output).toBe(
        `Cannot open the SQLite database at ${notAFolder}/data/app.db (DATABASE_URL): ENOTDIR: not a directory, mkdir '${notAFolder}/data'`,
      );
    },
  );
});

describe.concurrent('npm start with METRICS_PORT equal to PORT', BUSY, () => {
  it('stops with one line naming the port in use', async () => {
    const port = String(await freePort());
    const env = {
      ...minimalAppEnvironment(),
      DATABASE_URL: migratedDatabaseUrl,
      REDIS_URL: inject('redisUrl'),
      PORT: port,
      METRICS_PORT: port,
    };
    const result = await run('npm', ['run', '--silent', 'start'], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      new RegExp(`^Cannot listen on .*:${port} \\(METRICS_HOST, METRICS_PORT\\): the port is in use: give METRICS_PORT a free port\\.$`),
    );
  });
});

describe.concurrent('npm start with a HOST that is no address of this machine', BUSY, () => {
  it('stops with one line naming the address, not blaming the port', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const env = { ...minimalAppEnvironment(), DATABASE_URL: migratedDatabaseUrl, REDIS_URL: inject('redisUrl'), HOST: '192.0.2.1' };
    const result = await run('npm', ['run', '--silent', 'start'], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^Cannot listen on 192\.0\.2\.1:\d+ \(HOST, PORT\): 192\.0\.2\.1 is no address of this machine: give HOST one\.$/,
    );
  });
});

describe.concurrent('npm run migrate, then npm start and npm run worker', BUSY, () => {
  it('migrates a new database, after which web (with its metrics) and worker start and stop on a signal', async () => {
    const env = {
      ...minimalAppEnvironment(),
      DATABASE_URL: newDatabaseUrl(),
      PORT: String(await freePort()),
      REDIS_URL: inject('redisUrl'),
    };
    const migrate = await run('npm', ['run', '--silent', 'migrate'], env);
    expect(migrate.stdout).toMatch(/Applied: \d+_core_baseline, /);
    expect((await run('npm', ['run', '--silent', 'migrate'], env)).stdout).toContain('up to date');

    const metricsPort = await freePort();
    const web = start('npm', ['run', '--silent', 'start'], { ...env, METRICS_PORT: String(metricsPort) });
    const worker = start('npm', ['run', '--silent', 'worker'], env);
    try {
      const [, address] = await web.waitForOutput(/web listening on (\S+)"/);
      await worker.waitForOutput(/worker ready/);
      // SMTP_URL unset: the app runs as it would without mail, and says so once.
      for (const process of [web, worker]) expect(process.output()).toContain('mail is off (SMTP_URL is not set)');
      // HOST unset: this machine only, not its other interfaces.
      expect(address).toBe(`http://127.0.0.1:${env.PORT}`);
      for (const other of otherAddressesOfThisMachine()) {
        await expect(fetch(`http://${other}:${env.PORT}/healthz`), other).rejects.toThrow();
      }
      const home = await fetch(`http://127.0.0.1:${env.PORT}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('athlete-sync');
      // Counted once the answer is sent, which may be a moment after the client has it.
      const counted = /^athlete_sync_http_request_duration_seconds_count\{method="GET",route="\/",status="303"\} 1$/m;
      await eventually('the request in the web’s metrics', async () => {
        const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        return counted.test(metrics) ? true : undefined;
      });
    } finally {
      await web.stop();
      await worker.stop();
    }
  });
});
