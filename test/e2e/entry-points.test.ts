import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';
import { describe, expect, inject, it } from 'vitest';
import { MINIMAL_APP_ENVIRONMENT } from '../helpers/minimal-environment.js';
import { run, start } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';

function newDatabaseUrl(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'athlete-sync-entry-')), 'app.db')}`;
}

describe.each([
  ['npm start', 'start'],
  ['npm run worker', 'worker'],
])('%s', (_title, script) => {
  it('refuses a database with pending migrations and says to run npm run migrate', async () => {
    const result = await run('npm', ['run', '--silent', script], { ...MINIMAL_APP_ENVIRONMENT, DATABASE_URL: newDatabaseUrl() });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^The database has \d+ pending migration\(s\) .*run `npm run migrate` first\.$/);
  });

  it('stops with one line naming a missing setting', async () => {
    const env: NodeJS.ProcessEnv = { ...MINIMAL_APP_ENVIRONMENT, DATABASE_URL: newDatabaseUrl() };
    delete env.SESSION_SECRET;
    const result = await run('npm', ['run', '--silent', script], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Invalid configuration: SESSION_SECRET is required: at least 32 random characters',
    );
  });

  it('stops with one line when the Postgres in DATABASE_URL cannot be reached', async () => {
    const env = { ...MINIMAL_APP_ENVIRONMENT, DATABASE_URL: `postgres://postgres@127.0.0.1:${await getPort()}/app` };
    const result = await run('npm', ['run', '--silent', script], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^The database cannot be reached \(check DATABASE_URL and the server\): .*ECONNREFUSED.*$/);
  });
});

describe('npm start with METRICS_PORT equal to PORT', () => {
  it('stops with one line naming the port in use', async () => {
    const port = String(await getPort());
    const env = { ...MINIMAL_APP_ENVIRONMENT, DATABASE_URL: newDatabaseUrl(), REDIS_URL: inject('redisUrl'), PORT: port, METRICS_PORT: port };
    await run('npm', ['run', '--silent', 'migrate'], env);
    const result = await run('npm', ['run', '--silent', 'start'], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(new RegExp(`^listen EADDRINUSE: address already in use .*:${port}: give PORT and METRICS_PORT free ports, each its own$`));
  });
});

describe('npm run migrate, then npm start and npm run worker', () => {
  it('migrates a new database, after which web (with its metrics) and worker start and stop on a signal', async () => {
    const env = {
      ...MINIMAL_APP_ENVIRONMENT,
      DATABASE_URL: newDatabaseUrl(),
      PORT: String(await getPort()),
      REDIS_URL: inject('redisUrl'),
    };
    const migrate = await run('npm', ['run', '--silent', 'migrate'], env);
    expect(migrate.stdout).toMatch(/Applied: .*create_users/);
    expect((await run('npm', ['run', '--silent', 'migrate'], env)).stdout).toContain('up to date');

    const metricsPort = await getPort();
    const web = start('npm', ['run', '--silent', 'start'], { ...env, METRICS_PORT: String(metricsPort) });
    const worker = start('npm', ['run', '--silent', 'worker'], env);
    try {
      await web.waitForOutput(/web listening/);
      await worker.waitForOutput(/worker ready/);
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
