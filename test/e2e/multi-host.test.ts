import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedUser } from '../helpers/flows.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { listingRequests } from '../helpers/workouts.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * Two web processes and two workers on one database and one Redis, as on several hosts behind a
 * load balancer (under TEST_POSTGRES_URL the database is Postgres): a person signed in on one web
 * process is signed in on the other, the meals posted through both reach the service once per
 * day, whole, and a workouts list fetched through one is answered again through the other.
 */

const DAYS = ['2026-05-04', '2026-05-05', '2026-05-06'];
const ITEMS_PER_DAY = 4;

let stack: Stack;
let webs: WebProcess[];
let workers: Running[];
let email: string;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '2000' } });
  const { userId } = await connectedUser(stack);
  ({ email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow());
  webs = await Promise.all([startWebEntryPoint(stack), startWebEntryPoint(stack)]);
  workers = await Promise.all([startWorkerEntryPoint(stack), startWorkerEntryPoint(stack)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([...webs.map((web) => web.running), ...workers].map((process) => process.stop('SIGTERM')));
  await stack.close();
});

async function signInOn(web: WebProcess): Promise<string> {
  const response = await fetch(`${web.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long password' }),
  });
  expect(response.status).toBe(200);
  return response.headers.getSetCookie()[0]!.split(';')[0]!;
}

function api(web: WebProcess, cookie: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${web.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('two web processes and two workers on one database and one Redis', () => {
  let cookie: string;

  it('keep a person signed in on one web process signed in on the other', async () => {
    const [first, second] = webs as [WebProcess, WebProcess];
    cookie = await signInOn(first);
    const me = await api(second, cookie, '/api/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email, connection: { status: 'connected' } });
  });

  it('send each day whose meals were posted through both web processes once, with every item', async () => {
    const posts = DAYS.flatMap((date) =>
      Array.from({ length: ITEMS_PER_DAY }, (_, item) => ({ date, item, web: webs[item % webs.length]! })),
    );
    const statuses = await Promise.all(
      posts.map(({ date, item, web }) =>
        api(web, cookie, '/api/meals', {
          name: `Item ${item}`,
          carbs: 10 + item,
          logged_at: `${date}T${String(item + 7).padStart(2, '0')}:00:00+02:00`,
        }).then((response) => response.status),
      ),
    );
    expect(statuses).toEqual(posts.map(() => 201));

    await eventually(
      'every day to be synced',
      async () => {
        const response = await api(webs[1]!, cookie, `/api/sync/status?from=${DAYS[0]}&to=${DAYS.at(-1)}`);
        const { days } = (await response.json()) as { days: Array<{ status: string }> };
        return days.length === DAYS.length && days.every((day) => day.status === 'synced') ? true : undefined;
      },
      60_000,
    );

    const nutrition = Object.values((await stack.sandboxState()).athletes)[0]!.nutrition;
    for (const date of DAYS) {
      expect(nutrition[date]!.writes, date).toBe(1);
      expect(nutrition[date]!.payload.items, date).toHaveLength(ITEMS_PER_DAY);
    }
  }, 90_000);

  it('answer a person’s workouts list fetched through one web process again through the other, without asking the service', async () => {
    const listingCalls = async () => Object.values(await listingRequests(stack)).reduce((sum, count) => sum + count, 0);
    const [first, second] = webs as [WebProcess, WebProcess];
    const fetched = await api(first, cookie, '/api/workouts');
    expect(fetched.status).toBe(200);
    const calls = await listingCalls();
    const again = await api(second, cookie, '/api/workouts');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await fetched.json());
    expect(await listingCalls()).toBe(calls);
  });
});
