import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { DEMO_START_MS, demoEnvironment, demoPorts, startDemo } from '../helpers/demo.js';
import { bodyOf, CookieClient, type Me } from '../helpers/http-client.js';
import { serviceDay, writeDay } from '../helpers/kinds.js';
import { run, type Running } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';

/**
 * Starting a demo is most of the time here. So the file starts one and its tests look at it in
 * turn; the restart test stops it and leaves the second run for the last test, which stops that
 * one with Ctrl+C.
 */
describe('npm run demo', () => {
  let webPort: number;
  let sandboxPort: number;
  let mailPagePort: number;
  let metricsPort: number;
  let env: NodeJS.ProcessEnv;
  let demo: Running;

  beforeAll(async () => {
    const ports = await demoPorts();
    ({ web: webPort, sandbox: sandboxPort, mailPage: mailPagePort, metrics: metricsPort } = ports);
    env = demoEnvironment(ports, { ADMIN_EMAILS: 'Admin@example.com' });
    demo = await startDemo(env);
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
    // The operator's own address, set in the environment: nothing for them to confirm.
    expect(((await (await admin.get('/api/me')).json()) as { emailVerified: boolean }).emailVerified).toBe(true);
    expect((await admin.get('/admin/queues')).status).toBe(200);
    expect(demo.output()).not.toContain('EADDRINUSE');
  }, 60_000);

  it(
    'starts empty every time, as its sandbox does, so after a restart the dashboard and the sandbox agree',
    async () => {
      const sandbox = {
        sandboxState: async () =>
          bodyOf<{ athletes: Record<string, unknown> }>(await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/state`)),
      };
      const client = new CookieClient(`http://localhost:${webPort}`);
      const email = await signUpNewUser(client);
      expect((await connect(client)).status).toBe(303);
      await writeDay(client, '2026-03-10');
      await eventually('the day at the sandbox', async () => serviceDay(sandbox, 'Ada', '2026-03-10'));
      await demo.stop('SIGINT');

      demo = await startDemo(env);
      expect(demo.output()).toContain(
        `The demo starts empty every time (the sandbox remembers nothing between runs): emptied ${env.DATABASE_URL}`,
      );
      expect((await sandbox.sandboxState()).athletes).toEqual({});
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
    // The demo prints the address once the web answers; the worker's lines come in their own time.
    await eventually('the worker to say it is ready', async () => (/^\[worker 1\] .*worker ready/m.test(demo.output()) ? true : undefined));
    // Readable lines, not JSON, with the address the web listens on.
    expect(demo.output()).toMatch(
      new RegExp(`^\\[web\\] \\[\\d\\d:\\d\\d:\\d\\d\\] INFO: web listening on http://127\\.0\\.0\\.1:${webPort}`, 'm'),
    );
    expect(demo.output()).not.toMatch(/^\[(web|worker 1)\] \{/m);

    // Opened at the address its web's log line names, a page is sent on to the one printed.
    const atListenAddress = await fetch(`http://127.0.0.1:${webPort}/signup`, { redirect: 'manual' });
    expect(atListenAddress.status).toBe(307);
    expect(atListenAddress.headers.get('location')).toBe(`${url}/signup`);
    const signIn = await fetch(`${url}/`, { redirect: 'manual' });
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
    // npm may exit before the demo's own process has stopped everything and printed its last line;
    // on a busy machine that takes up to the demo's shutdown timeout (3 × ATHLETE_TIMEOUT_S).
    const lastLine = `The demo stopped. ${env.DATABASE_URL} and the Redis keys ${env.REDIS_PREFIX}:* are kept to look into until the next run.`;
    await eventually('the demo’s last line', async () => (demo.output().includes(lastLine) ? true : undefined), 45_000).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; its output:\n${demo.output()}`);
      },
    );
    await expect(fetch(`http://127.0.0.1:${webPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${sandboxPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${mailPagePort}/`)).rejects.toThrow();
  }, 120_000);
});

/**
 * The refusal's wording for each port alone is test/dev/ports-in-use.test.ts's: here one run with
 * every port taken shows the demo checks each of them before anything starts and says so in plain lines.
 */
describe('npm run demo with the ports it listens on taken', () => {
  it('stops before starting or emptying anything, naming each taken port and its setting with a free value for each, with no stack trace', async () => {
    const ports = await demoPorts();
    const taken = [
      { port: ports.web, setting: 'PORT', offset: 0, named: 'the web app (PORT)' },
      { port: ports.sandbox, setting: 'SANDBOX_PORT', offset: 0, named: 'the sandbox (SANDBOX_PORT)' },
      { port: ports.metrics, setting: 'METRICS_PORT', offset: 0, named: "the web app's metrics (METRICS_PORT)" },
      { port: ports.metrics + 1, setting: 'METRICS_PORT', offset: 1, named: "worker 1's metrics (METRICS_PORT + 1)" },
      { port: ports.mailPage, setting: 'MAIL_PAGE_PORT', offset: 0, named: 'the page of the mails the app sent (MAIL_PAGE_PORT)' },
    ];
    const holders = await Promise.all(
      taken.map(async ({ port }) => {
        const holder = createServer().listen(port, '127.0.0.1');
        await once(holder, 'listening');
        return holder;
      }),
    );
    const result = await run('npm', ['run', '--silent', 'demo'], demoEnvironment(ports), { timeoutMs: 60_000 }).finally(() => {
      for (const holder of holders) holder.close();
    });

    expect(result.code).toBe(1);
    const lines = taken.map(({ port, named }) => `- ${port} on 127.0.0.1, for ${named}\n`).join('');
    expect(result.stderr).toContain(`npm run demo cannot start: ports it listens on are taken:\n${lines}`);
    const [, suggested] =
      result.stderr.match(/Give PORT and SANDBOX_PORT and METRICS_PORT and MAIL_PAGE_PORT free ports, e\.g\. (.+) npm run demo\./) ?? [];
    const free = new Map(suggested?.split(' ').map((assignment) => assignment.split('=') as [string, string]));
    expect([...free.keys()]).toEqual(['PORT', 'SANDBOX_PORT', 'METRICS_PORT', 'MAIL_PAGE_PORT']);
    const moved = taken.map(({ setting, offset }) => Number(free.get(setting)) + offset);
    expect(moved.filter((port) => taken.some((use) => use.port === port))).toEqual([]);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).not.toContain('emptied');
    expect(result.stdout).not.toMatch(/^\[(web|sandbox|worker 1)\]/m);
  }, 60_000);
});
