import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { connectedUser, signUpNewUser } from '../helpers/flows.js';
import { appDay, serviceDay, workload } from '../helpers/kinds.js';
import { CookieClient } from '../helpers/http-client.js';
import { eachInOrder, type Running, start } from '../helpers/processes.js';
import { startRedisSentinel, type RedisSentinelSetup } from '../helpers/redis-sentinel.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

/**
 * The app through Redis Sentinel (a primary, two replicas, three sentinels, each with a password):
 * `npm start` and `npm run worker` in processes of their own, the test's web app beside them, and
 * a signed-in person writing (the test kind's writes) to the web process while the primary is killed, then while it
 * hands over to a replica.
 */

const PASSWORDS = { servers: 'server-secret', sentinels: 'sentinel-secret' };
const DATES = ['2026-04-01', '2026-04-02', '2026-04-03'];
/** How long the person posts before the kill, and goes on posting once the app answers again. */
const STEADY_MS = 1000;

let setup: RedisSentinelSetup;
let sentinelSettings: Record<string, string>;
let stack: Stack;
let web: WebProcess;
let worker: Running;
let person: CookieClient;

beforeAll(async () => {
  setup = await startRedisSentinel(PASSWORDS);
  sentinelSettings = {
    REDIS_SENTINELS: setup.sentinelAddresses.map((address) => `redis://:${PASSWORDS.sentinels}@${address}`).join(','),
    // The servers' user and password, and database 2, as the primary's URL gives them.
    REDIS_SENTINEL_MASTER: `redis://default:${PASSWORDS.servers}@${setup.masterName}/2`,
  };
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, redis: sentinelSettings, env: { SYNC_QUIET_MS: '300' } });
  [web, worker] = await Promise.all([startWebEntryPoint(stack), startWorkerProcess(stack)]);
  const { userId } = await connectedUser(stack);
  const { email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
  person = new CookieClient(web.url);
  expect((await person.postJson('/api/login', { email, password: 'a long password' })).status).toBe(200);
}, 60_000);
afterAll(() =>
  eachInOrder(
    () => Promise.all([web?.running.stop('SIGTERM'), worker?.stop('SIGTERM')]),
    () => stack?.close(),
    () => setup?.stop(),
  ),
);

interface Post {
  date: string;
  status: number;
  /** performance.now() when the answer came. */
  answeredAt: number;
}

const posts: Post[] = [];

async function post(dates = DATES): Promise<Post> {
  const index = posts.length;
  const date = dates[index % dates.length]!;
  const response = await workload.write.send(person, date, index);
  await response.arrayBuffer();
  const entry = { date, status: response.status, answeredAt: performance.now() };
  posts.push(entry);
  return entry;
}

async function postWhile(going: () => boolean): Promise<void> {
  while (going()) {
    await post();
    await sleep(20);
  }
}

function postFor(ms: number): Promise<void> {
  const until = performance.now() + ms;
  return postWhile(() => performance.now() < until);
}

const acknowledged = (entry: Post) => entry.status >= 200 && entry.status < 300;

/** Resolves once the service holds every day written to as the app does. */
async function writtenDaysSent(): Promise<void> {
  const dates = [...new Set(posts.filter(acknowledged).map((entry) => entry.date))];
  await eventually(
    'every day written to at the service as the app holds it',
    async () => {
      for (const date of dates) {
        const inApp = await appDay(person, date);
        if (inApp === undefined || !isDeepStrictEqual((await serviceDay(stack, 'Ana', date))?.content, inApp)) return undefined;
      }
      return true;
    },
    30_000,
  );
}

describe('the app through Redis Sentinel', () => {
  it('loses no acknowledged write when the primary is killed, answers nothing worse than 503, and answers again after the failover without a restart', async () => {
    await postFor(STEADY_MS);
    const killed = await setup.primaryPort();
    await setup.killPrimary();
    const killedAt = performance.now();
    const switched = setup.primaryMovedFrom(killed).then(() => performance.now());
    const firstGood = () => posts.find((entry) => entry.answeredAt > killedAt && acknowledged(entry));
    await postWhile(() => !firstGood() && performance.now() - killedAt < 30_000);
    const recoveredAt = firstGood()?.answeredAt;
    expect(recoveredAt, 'a write acknowledged after the kill').toBeDefined();
    const switchedAt = await switched;
    const seconds = (from: number) => ((recoveredAt! - from) / 1000).toFixed(1);
    console.log(
      `Redis Sentinel failover: the first write acknowledged ${seconds(killedAt)} s after the primary was killed, ${seconds(switchedAt)} s after the sentinels named another`,
    );
    await postFor(STEADY_MS);

    expect(posts.filter((entry) => !acknowledged(entry) && entry.status !== 503)).toEqual([]);
    const afterRecovery = posts.filter((entry) => entry.answeredAt > recoveredAt!);
    expect(afterRecovery.filter((entry) => !acknowledged(entry))).toEqual([]);
    // The writes went through the session store's client; the web's other connection may still be on its way.
    await eventually('the web process to be ready', async () => ((await fetch(`${web.url}/readyz`)).ok ? true : undefined), 5000);
    await writtenDaysSent();
    for (const child of [web.running.child, worker.child]) expect(child.exitCode).toBeNull();
  }, 60_000);

  it('leaves a primary that hands over while still up, every process, once the sentinels turn it into a replica, and goes on taking writes', async () => {
    const from = await setup.primaryPort();
    expect(await setup.clientsOf(from)).toBeGreaterThan(0);
    await setup.switchover();
    const switchedAt = performance.now();
    // The sentinels turn it into a replica when they next look at it (every 10 s), which closes its connections.
    await eventually(
      'no client of the app left on the former primary',
      async () => ((await setup.clientsOf(from)) === 0 ? true : undefined),
      20_000,
    );
    console.log(
      `Redis Sentinel switchover: every process left the former primary ${((performance.now() - switchedAt) / 1000).toFixed(1)} s after the sentinels named the new one`,
    );
    expect(acknowledged(await post(['2026-04-04']))).toBe(true);
    await writtenDaysSent();
  }, 60_000);

  it('keeps the app’s keys in the database the primary’s URL names', async () => {
    const keysIn = async (db: number) => {
      const redis = new Redis({ port: await setup.primaryPort(), password: PASSWORDS.servers, db });
      try {
        return await redis.keys(`${stack.config.redis.prefix}:*`);
      } finally {
        redis.disconnect();
      }
    };
    expect((await keysIn(2)).length).toBeGreaterThan(0);
    expect(await keysIn(0)).toEqual([]);
  });

  it('runs npm run demo on the setup the environment names, emptying its keys there first', async () => {
    const demoPrefix = testRedisPrefix();
    const leftover = `${demoPrefix}:left-by-an-earlier-run`;
    const redis = new Redis({ port: await setup.primaryPort(), password: PASSWORDS.servers, db: 2 });
    await redis.set(leftover, '1');
    const webPort = await freePort();
    const demo = start('npm', ['run', 'demo'], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MAIL_PAGE_PORT: String(await freePort()),
      PORT: String(webPort),
      SANDBOX_PORT: String(await freePort()),
      DATABASE_URL: `sqlite:${join(temporaryFolder('athlete-sync-demo-'), 'demo.db')}`,
      ...sentinelSettings,
      REDIS_PREFIX: demoPrefix,
    });
    try {
      await demo.waitForOutput(/Open http:\/\/localhost:\d+/);
      expect(demo.output()).toContain(`REDIS_SENTINEL_MASTER=redis://default:***@${setup.masterName}/2 (the environment).`);
      expect(await redis.exists(leftover)).toBe(0);
      // Signed up, with a session kept through Sentinel: the page of a signed-in person.
      const client = new CookieClient(`http://localhost:${webPort}`);
      await signUpNewUser(client);
      expect((await client.get('/')).status).toBe(200);
    } finally {
      redis.disconnect();
      await demo.stop('SIGINT');
    }
  }, 90_000);
});
