import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedUser } from '../helpers/flows.js';
import { CookieClient } from '../helpers/http-client.js';
import type { Running } from '../helpers/processes.js';
import { startRedisSentinel, type RedisSentinelSetup } from '../helpers/redis-sentinel.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

/**
 * The app through Redis Sentinel (a primary, two replicas, three sentinels, each with a password):
 * `npm start` and `npm run worker` in processes of their own, the test's web app beside them, and
 * a signed-in person posting meals to the web process while the primary is killed, then while it
 * hands over to a replica.
 */

const PASSWORDS = { servers: 'server-secret', sentinels: 'sentinel-secret' };
const DATES = ['2026-04-01', '2026-04-02', '2026-04-03'];
/** How long the person posts before the kill, and goes on posting once the app answers again. */
const STEADY_MS = 1000;

let setup: RedisSentinelSetup;
let stack: Stack;
let web: WebProcess;
let worker: Running;
let person: CookieClient;

beforeAll(async () => {
  setup = await startRedisSentinel(PASSWORDS);
  stack = await startStack({
    sandbox: { autoApprove: 'Ana' },
    redis: {
      REDIS_SENTINELS: setup.sentinelAddresses.map((address) => `redis://:${PASSWORDS.sentinels}@${address}`).join(','),
      // Database 2, as the primary's URL names it.
      REDIS_SENTINEL_MASTER: `redis://:${PASSWORDS.servers}@${setup.masterName}/2`,
    },
    env: { SYNC_QUIET_MS: '300' },
  });
  [web, worker] = await Promise.all([startWebEntryPoint(stack), startWorkerProcess(stack)]);
  const { userId } = await connectedUser(stack);
  const { email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
  person = new CookieClient(web.url);
  expect((await person.postJson('/api/login', { email, password: 'a long password' })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await Promise.all([web?.running.stop('SIGTERM'), worker?.stop('SIGTERM')]);
  await stack?.close();
  await setup?.stop();
});

interface Post {
  name: string;
  date: string;
  status: number;
  /** performance.now() when the answer came. */
  answeredAt: number;
}

const posts: Post[] = [];

async function post(dates = DATES): Promise<Post> {
  const index = posts.length;
  const date = dates[index % dates.length]!;
  const name = `Meal ${index}`;
  const time = `${String(6 + Math.floor(index / 60)).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}`;
  const response = await person.postJson('/api/meals', { name, carbs: 10, logged_at: `${date}T${time}:00+02:00` });
  const entry = { name, date, status: response.status, answeredAt: performance.now() };
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

/** Resolves once every meal the app acknowledged is in the day the service holds. */
async function acknowledgedMealsSent(): Promise<void> {
  const acknowledged = posts.filter((entry) => entry.status === 201);
  await eventually(
    'every acknowledged meal at the service',
    async () => {
      const nutrition = (await stack.sandboxState()).athletes.Ana?.nutrition ?? {};
      const sent = new Set(Object.values(nutrition).flatMap((day) => day.payload.items.map((item) => `${day.payload.date} ${String(item.name)}`)));
      return acknowledged.every((entry) => sent.has(`${entry.date} ${entry.name}`)) ? true : undefined;
    },
    30_000,
  );
}

describe('the app through Redis Sentinel', () => {
  it('loses no acknowledged meal when the primary is killed, answers nothing worse than 503, and answers again after the failover without a restart', async () => {
    await postFor(STEADY_MS);
    await setup.killPrimary();
    const killedAt = performance.now();
    const firstGood = () => posts.find((entry) => entry.answeredAt > killedAt && entry.status === 201);
    await postWhile(() => !firstGood() && performance.now() - killedAt < 30_000);
    const recoveredAt = firstGood()?.answeredAt;
    expect(recoveredAt, 'a meal acknowledged after the kill').toBeDefined();
    console.log(`Redis Sentinel failover: the first meal acknowledged ${((recoveredAt! - killedAt) / 1000).toFixed(1)} s after the primary was killed`);
    await postFor(STEADY_MS);

    expect([...new Set(posts.map((entry) => entry.status))].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    const afterRecovery = posts.filter((entry) => entry.answeredAt > recoveredAt!);
    expect(afterRecovery.map((entry) => entry.status)).toEqual(afterRecovery.map(() => 201));
    // Sentinels that learn of the new primary late make the clients reconnect once more, each a moment.
    await eventually('the web process to be ready', async () => ((await fetch(`${web.url}/readyz`)).ok ? true : undefined), 5000);
    await acknowledgedMealsSent();
    for (const child of [web.running.child, worker.child]) expect(child.exitCode).toBeNull();
  }, 60_000);

  it('leaves a primary that hands over while still up at once, every process, and goes on taking meals', async () => {
    const from = await setup.primaryPort();
    expect(await setup.clientsOf(from)).toBeGreaterThan(0);
    await setup.switchover();
    // Left on it, a write would be lost when the sentinels turn it into a replica, some seconds later.
    await eventually('no client of the app left on the former primary', async () => ((await setup.clientsOf(from)) === 0 ? true : undefined), 3000);
    expect((await post(['2026-04-04'])).status).toBe(201);
    await acknowledgedMealsSent();
  }, 60_000);
});
