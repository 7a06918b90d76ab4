import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, CookieClient, type Me } from '../helpers/http-client.js';
import { addMeal } from '../helpers/meals.js';
import { start, type Running } from '../helpers/processes.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';

/**
 * Starting a demo is most of the time here: four Node processes load the sources through tsx. So
 * the file starts one and its tests look at it in turn; the restart test stops it and leaves the
 * second run for the last test, which stops that one with Ctrl+C.
 */
const DEMO_START_MS = 120_000;

describe('npm run demo', () => {
  let webPort: number;
  let sandboxPort: number;
  let mailPagePort: number;
  let metricsPort: number;
  let env: NodeJS.ProcessEnv;
  let demo: Running;

  /** Starts the demo and waits for the last line it prints once everything runs. */
  async function startDemo(): Promise<Running> {
    const started = start('npm', ['run', 'demo'], env);
    try {
      await started.waitForOutput(/Mails the app sent/, DEMO_START_MS);
    } catch (error) {
      await started.stop('SIGINT');
      throw error;
    }
    return started;
  }

  beforeAll(async () => {
    [webPort, sandboxPort, mailPagePort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(webPort),
      SANDBOX_PORT: String(sandboxPort),
      MAIL_PAGE_PORT: String(mailPagePort),
      METRICS_PORT: String(metricsPort),
      ADMIN_EMAILS: 'Admin@example.com',
      SANDBOX_AUTO_APPROVE: 'Ada',
      // A day reaches the sandbox without the default 5 s of quiet first.
      SYNC_QUIET_MS: '200',
      DATABASE_URL: `sqlite:${join(temporaryFolder('athlete-sync-demo-'), 'demo.db')}`,
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: testRedisPrefix(),
    };
    demo = await startDemo();
  }, DEMO_START_MS);
  afterAll(async () => {
    await demo.stop('SIGINT');
  });

  it('gives the web and the worker metrics ports of their own, makes the listed admins for the queue dashboard, and says which Redis it uses', async () => {
    expect(demo.output()).toContain(`Redis: ${new URL(inject('redisUrl')).href} (REDIS_URL).`);
    const web = `http://127.0.0.1:${metricsPort}/metrics`;
    const worker = `http://127.0.0.1:${metricsPort + 1}/metrics`;
    expect(demo.output()).toContain(`Metrics: web ${web}, worker 1 ${worker}`);
    await eventually('the worker serving metrics', async () => ((await fetch(worker).catch(() => undefined))?.ok ? true : undefined));
    expect((await fetch(web)).status).toBe(200);

    const [, email, password] =
      demo.output().match(/queue dashboard: \S+\/admin\/queues, signed in as (\S+) with the password (\S+)/) ?? [];
    expect(email).toBe('admin@example.com');
    const admin = new CookieClient(`http://localhost:${webPort}`);
    expect((await admin.postJson('/api/login', { email, password })).status).toBe(200);
    expect((await admin.get('/admin/queues')).status).toBe(200);
    expect(demo.output()).not.toContain('EADDRINUSE');
  }, 60_000);

  it(
    'starts empty every time, as its sandbox does, so after a restart the dashboard and the sandbox agree',
    async () => {
      const sandboxAthletes = async () => {
        const state = await bodyOf<{ athletes: Record<string, { nutrition: Record<string, unknown> }> }>(
          await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/state`),
        );
        return state.athletes;
      };
      const client = new CookieClient(`http://localhost:${webPort}`);
      const email = await signUpNewUser(client);
      expect((await connect(client)).status).toBe(303);
      await addMeal(client, { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:00:00+01:00' });
      await eventually('the day at the sandbox', async () => (await sandboxAthletes()).Ada?.nutrition['2026-03-10']);
      await demo.stop('SIGINT');

      demo = await startDemo();
      expect(demo.output()).toContain(
        `The demo starts empty every time (the sandbox remembers nothing between runs): emptying ${env.DATABASE_URL}`,
      );
      expect(await sandboxAthletes()).toEqual({});
      expect((await client.get('/api/me')).status).toBe(401);
      const again = new CookieClient(`http://localhost:${webPort}`);
      expect((await again.postJson('/api/signup', { email, password: 'a long password', timezone: 'Europe/Berlin' })).status).toBe(201);
      expect((await bodyOf<Me>(await again.get('/api/me'))).connection).toBeNull();
      expect(await (await again.get('/')).text()).toContain('Not connected');
    },
    2 * DEMO_START_MS,
  );

  it('starts sandbox, web and worker, shows their logs as readable lines, prints the URL to open, and stops them all on Ctrl+C', async () => {
    const [, url] = demo.output().match(/Open (http:\/\/localhost:\d+)/) ?? [];
    expect(url).toBe(`http://localhost:${webPort}`);
    expect(demo.output()).toMatch(/\[worker 1\].*worker ready[\s\S]*Open http/);
    // Readable lines, not JSON, with the address the web listens on.
    expect(demo.output()).toMatch(
      new RegExp(`^\\[web\\] \\[\\d\\d:\\d\\d:\\d\\d\\] INFO: web listening on http://127\\.0\\.0\\.1:${webPort}`, 'm'),
    );
    expect(demo.output()).not.toMatch(/^\[(web|worker 1)\] \{/m);

    const signIn = await fetch(`http://127.0.0.1:${webPort}/`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/login');
    const sandbox = await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/state`);
    expect(sandbox.status).toBe(200);
    // Its sandbox refuses a field the interface document does not show (SANDBOX_STRICT_FIELDS, set by the dev stack).
    const settings = await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await settings.json()).toMatchObject({ strictFields: true });
    expect(demo.output()).toContain(`Mails the app sent: http://127.0.0.1:${mailPagePort}`);
    expect(await (await fetch(`http://127.0.0.1:${mailPagePort}/`)).text()).toContain('Mails sent by the demo');

    await demo.stop('SIGINT');
    expect(demo.output()).not.toContain('stopping the demo');
    await expect(fetch(`http://127.0.0.1:${webPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${sandboxPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${mailPagePort}/`)).rejects.toThrow();
  }, 60_000);
});
