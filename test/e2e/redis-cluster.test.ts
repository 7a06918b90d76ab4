import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { createRedisConnection } from '../../src/redis/redis.js';
import { keyHolders } from '../../src/redis/redis-target.js';
import { connect, connectedUser, signedInToExistingAccount, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, CookieClient, type Me } from '../helpers/http-client.js';
import { serviceDay, workload, writeDay } from '../helpers/kinds.js';
import { minimalAppEnvironment } from '../helpers/minimal-environment.js';
import { eachInOrder, run, type Running, start } from '../helpers/processes.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

/**
 * The app on a Redis Cluster of three masters with a password, named by one node that does not
 * serve the slot of its keys (a plain client there is answered MOVED): `npm start` and `npm run
 * worker` in processes of their own, and the test's web app beside them, all on REDIS_CLUSTER_NODES.
 */

const CLUSTER_PASSWORD = 'cluster-secret';
const ADMIN = 'ops@example.com';
const PASSWORD = 'a long password';
/** Short enough that the second day is sent after a token refresh, under the refresh lock. */
const ACCESS_TOKEN_TTL_S = 4;

let cluster: RedisCluster;
let seed: string;
let prefix: string;
let stack: Stack;
let web: WebProcess;
let worker: Running;

beforeAll(async () => {
  cluster = await startRedisCluster(CLUSTER_PASSWORD);
  prefix = `{${testRedisPrefix()}}`;
  // The URL's user and password are given to every node the app finds.
  seed = `redis://default:${CLUSTER_PASSWORD}@${await cluster.nodeNotOwning(prefix)}`;
  stack = await startStack({
    sandbox: { autoApprove: 'Ana', accessTokenTtlS: ACCESS_TOKEN_TTL_S },
    redis: { REDIS_CLUSTER_NODES: seed },
    env: { REDIS_PREFIX: prefix, ADMIN_EMAILS: ADMIN, SYNC_QUIET_MS: '300' },
  });
  [web, worker] = await Promise.all([startWebEntryPoint(stack), startWorkerProcess(stack)]);
}, 60_000);
afterAll(() =>
  eachInOrder(
    () => Promise.all([web?.running.stop('SIGTERM'), worker?.stop('SIGTERM')]),
    () => stack?.close(),
    () => cluster?.stop(),
  ),
);

async function signedInOnWebProcess(email: string): Promise<CookieClient> {
  const client = new CookieClient(web.url);
  expect((await client.postJson('/api/login', { email, password: PASSWORD })).status).toBe(200);
  return client;
}

describe('the app on a Redis Cluster, given a node that does not serve its slot', () => {
  it(`signs a person up and connects them, keeps them signed in on the other web process, and sends their ${workload.name}, after a token refresh too`, async () => {
    const { userId } = await connectedUser(stack);
    const { email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    const person = await signedInOnWebProcess(email);
    expect(await bodyOf<Me>(await person.get('/api/me'))).toMatchObject({ email, connection: { status: 'connected' } });

    await writeDay(person, '2026-03-10');
    await eventually('the first day at the service', () => serviceDay(stack, 'Ana', '2026-03-10'));
    // Past half the token's life: the worker refreshes it first.
    await new Promise((resolve) => setTimeout(resolve, (ACCESS_TOKEN_TTL_S / 2) * 1000));
    await writeDay(person, '2026-03-11');
    await eventually('the second day at the service', () => serviceDay(stack, 'Ana', '2026-03-11'));
    expect((await stack.sandboxState()).counters.refreshRequests).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('answers /readyz, and shows an admin the queues', async () => {
    expect(await (await fetch(`${web.url}/readyz`)).json()).toEqual({ ok: true });
    await signedInToExistingAccount(stack, ADMIN);
    const admin = await signedInOnWebProcess(ADMIN);
    const queues = await admin.get('/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    expect(await queues.json()).toMatchObject({
      queues: [expect.objectContaining({ name: 'sync-fresh' }), expect.objectContaining({ name: 'sync-history' })],
    });
  });

  it('keeps every key of the app (BullMQ’s, the sessions’, the sign-in limits’) in the one slot of its braced prefix', async () => {
    const redis = createRedisConnection(stack.config.redis.target);
    try {
      await eventually('the cluster connection', async () => (redis.status === 'ready' ? true : undefined));
      const keys: string[] = [];
      for (const master of keyHolders(redis)) keys.push(...(await master.keys(`${prefix}*`)));
      for (const part of [':sync-fresh:', ':sync-history:', ':session:', ':user-sessions:', ':attempts:']) {
        expect(
          keys.some((key) => key.includes(part)),
          part,
        ).toBe(true);
      }
      const slots = new Set(await Promise.all(keys.map((key) => redis.cluster('KEYSLOT', key))));
      expect(slots).toEqual(new Set([await redis.cluster('KEYSLOT', prefix)]));
    } finally {
      redis.disconnect();
    }
  });

  it('is refused at start with a REDIS_PREFIX out of braces, saying what to set', async () => {
    const unbraced = testRedisPrefix();
    const result = await run('npm', ['run', '--silent', 'worker'], {
      ...minimalAppEnvironment(),
      REDIS_PREFIX: unbraced,
      REDIS_CLUSTER_NODES: seed,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Invalid configuration: REDIS_PREFIX must be in braces with REDIS_CLUSTER_NODES, so that every key of the app is in one hash slot: REDIS_PREFIX={${unbraced}}`,
    );
  });

  it('is refused at start when REDIS_URL names one of its nodes, web and worker each saying what to set', async () => {
    const { REDIS_CLUSTER_NODES: _cluster, ...env } = stack.env;
    const asOneServer = { ...minimalAppEnvironment(), ...env, LOG_LEVEL: 'info', REDIS_URL: seed };
    const [webStart, workerStart] = await Promise.all([
      run('npm', ['run', '--silent', 'start'], { ...asOneServer, PORT: String(await freePort()) }),
      run('npm', ['run', '--silent', 'worker'], asOneServer),
    ]);
    const line = `REDIS_URL names a node of a Redis Cluster (${seed.replace(`:${CLUSTER_PASSWORD}`, '')}): set REDIS_CLUSTER_NODES to it instead of REDIS_URL, with REDIS_PREFIX in braces`;
    for (const result of [webStart, workerStart]) {
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(line);
    }
  });
});

describe('npm run demo on a Redis Cluster', () => {
  it(`empties its keys there, starts on the cluster the environment names, and sends a person’s ${workload.name} to its sandbox`, async () => {
    const demoPrefix = `{${testRedisPrefix()}}`;
    const leftover = `${demoPrefix}:left-by-an-earlier-run`;
    const redis = createRedisConnection(stack.config.redis.target);
    await redis.set(leftover, '1');
    const [webPort, sandboxPort] = [await freePort(), await freePort()];
    const demo = start('npm', ['run', 'demo'], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MAIL_PAGE_PORT: String(await freePort()),
      PORT: String(webPort),
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_AUTO_APPROVE: 'Ada',
      DATABASE_URL: `sqlite:${join(temporaryFolder('athlete-sync-demo-'), 'demo.db')}`,
      REDIS_CLUSTER_NODES: seed,
      REDIS_PREFIX: demoPrefix,
    });
    try {
      await demo.waitForOutput(/Open http:\/\/localhost:\d+/);
      expect(demo.output()).toContain(`Redis: REDIS_CLUSTER_NODES=${seed.replace(CLUSTER_PASSWORD, '***')} (the environment).`);
      expect(await redis.exists(leftover)).toBe(0);
      const client = new CookieClient(`http://localhost:${webPort}`);
      await signUpNewUser(client);
      expect((await connect(client)).status).toBe(303);
      await writeDay(client, '2026-03-10');
      const demoSandbox = { sandboxState: async () => (await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/state`)).json() };
      await eventually('the day at the demo’s sandbox', () => serviceDay(demoSandbox, 'Ada', '2026-03-10'));
    } finally {
      redis.disconnect();
      await demo.stop('SIGINT');
    }
  }, 90_000);
});
