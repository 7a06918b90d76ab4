import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppClient } from '../../src/kinds/workload.js';
import { connectedUser } from '../helpers/flows.js';
import { appDay, serviceDay, workload } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { signInOn, startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * Two web processes and two workers on one database and one Redis, as on several hosts behind a
 * load balancer (under TEST_POSTGRES_URL the database is Postgres): a person signed in on one web
 * process is signed in on the other, and the writes made through both reach the service once per
 * day, whole.
 */

const DAYS = ['2026-05-04', '2026-05-05', '2026-05-06'];
const WRITES_PER_DAY = 4;

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

/** The person signed in with `cookie`, through `web`. */
function through(web: WebProcess, cookie: string): AppClient {
  return {
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', cookie);
      return fetch(`${web.url}${path}`, { ...init, headers });
    },
  };
}

const api = (web: WebProcess, cookie: string, path: string) => through(web, cookie).request(path);

describe('two web processes and two workers on one database and one Redis', () => {
  let cookie: string;

  it('keep a person signed in on one web process signed in on the other', async () => {
    const [first, second] = webs as [WebProcess, WebProcess];
    cookie = await signInOn(first, email);
    const me = await api(second, cookie, '/api/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email, connection: { status: 'connected' } });
  });

  it('send each day written to through both web processes once, as the app holds it', async () => {
    const posts = DAYS.flatMap((date) => Array.from({ length: WRITES_PER_DAY }, (_, n) => ({ date, n, web: webs[n % webs.length]! })));
    const acknowledged = await Promise.all(
      posts.map(({ date, n, web }) => workload.write.send(through(web, cookie), date, n).then((response) => response.ok)),
    );
    expect(acknowledged).toEqual(posts.map(() => true));

    await eventually(
      'every day to be synced',
      async () => {
        const response = await api(webs[1]!, cookie, `/api/sync/status?from=${DAYS[0]}&to=${DAYS.at(-1)}`);
        const { days } = (await response.json()) as { days: Array<{ status: string }> };
        return days.length === DAYS.length && days.every((day) => day.status === 'synced') ? true : undefined;
      },
      60_000,
    );

    for (const date of DAYS) {
      const sent = await serviceDay(stack, 'Ana', date);
      expect(sent?.writes, date).toBe(1);
      expect(sent?.content, date).toEqual(await appDay(through(webs[0]!, cookie), date));
    }
  }, 90_000);
});
