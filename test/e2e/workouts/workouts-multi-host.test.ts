import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedUser } from '../../helpers/flows.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { signInOn, startWebEntryPoint, type WebProcess } from '../../helpers/web-process.js';
import { listingRequests } from '../../workouts/helpers.js';

/**
 * Two web processes on one database and one Redis, as on several hosts behind a load balancer
 * (under TEST_POSTGRES_URL the database is Postgres): a workouts list fetched through one is
 * answered again through the other.
 */

let stack: Stack;
let webs: [WebProcess, WebProcess];
let email: string;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  const { userId } = await connectedUser(stack);
  ({ email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow());
  webs = await Promise.all([startWebEntryPoint(stack), startWebEntryPoint(stack)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(webs.map((web) => web.running.stop('SIGTERM')));
  await stack.close();
});

const api = (web: WebProcess, cookie: string, path: string) => fetch(`${web.url}${path}`, { headers: { cookie } });

describe('two web processes on one database and one Redis', () => {
  it('answer a person’s workouts list fetched through one web process again through the other, without asking the service', async () => {
    const listingCalls = async () => Object.values(await listingRequests(stack)).reduce((sum, count) => sum + count, 0);
    const [first, second] = webs;
    const cookie = await signInOn(first, email);
    const fetched = await api(first, cookie, '/api/workouts');
    expect(fetched.status).toBe(200);
    const calls = await listingCalls();
    const again = await api(second, cookie, '/api/workouts');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await fetched.json());
    expect(await listingCalls()).toBe(calls);
  });
});
