import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { connectedUser } from '../helpers/flows.js';
import type { Running } from '../helpers/processes.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * A Redis that stops answering without closing its connections (SIGSTOP: what a network partition
 * or a stalled host looks like to a client), under a web process and a worker of their own.
 */

/** What the requests may take while Redis is silent; they hung for minutes before. */
const ANSWER_WITHIN_MS = 5000;
const BACK_WITHIN_MS = 15_000;
const DAY = '2026-05-04';

let redis: DisposableRedis;
let stack: Stack;
let web: WebProcess;
let worker: Running;
let cookie: string;

beforeAll(async () => {
  redis = await DisposableRedis.start();
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { REDIS_URL: redis.url } });
  const { client } = await connectedUser(stack);
  cookie = `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}`;
  web = await startWebEntryPoint(stack);
  worker = await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '500' });
}, 60_000);

afterAll(async () => {
  redis.thaw();
  await Promise.all([web.running.stop('SIGTERM'), worker.stop('SIGTERM')]);
  await stack.close();
  await redis.stop();
});

interface Answer {
  status: number | 'no answer';
  retryAfter: string | null;
  ms: number;
}

/** The answer of the web process, or 'no answer' after twice the time allowed. */
async function ask(path: string, body?: unknown): Promise<Answer> {
  const started = Date.now();
  try {
    const response = await fetch(`${web.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(2 * ANSWER_WITHIN_MS),
    });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started };
  } catch {
    return { status: 'no answer', retryAfter: null, ms: Date.now() - started };
  }
}

function meal(name: string) {
  return { name, carbs: 30, logged_at: `${DAY}T12:00:00` };
}

async function mealNamesAtService(): Promise<string[]> {
  const { athletes } = await stack.sandboxState();
  return (athletes.Ana?.nutrition[DAY]?.payload.items ?? []).map((item) => String(item.name));
}

describe('a Redis that stops answering, its connections left open', () => {
  it('gets every request that needs it answered 503 with Retry-After within 5 s, the worker waiting for it, and everything back, nothing acknowledged lost, once it answers', async () => {
    expect((await ask('/api/meals', meal('Acknowledged'))).status).toBe(201);
    // Its quiet period ends while Redis is silent: the worker hands it to the queue then, or after.
    redis.freeze();
    const answers = {
      'GET /api/me': await ask('/api/me'),
      'GET /meals': await ask('/meals'),
      'POST /api/meals': await ask('/api/meals', meal('Refused')),
      'GET /login': await ask('/login'),
    };
    for (const answer of Object.values(answers)) {
      expect(answer).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
    }
    expect((await ask('/readyz')).status).toBe(503);
    await worker.waitForOutput(/Redis not answering/, 5000);

    redis.thaw();
    await eventually(
      'the web process to answer 200',
      async () => ((await ask('/api/me')).status === 200 ? true : undefined),
      BACK_WITHIN_MS,
    );
    await eventually('the acknowledged meal to reach the service', async () =>
      (await mealNamesAtService()).includes('Acknowledged') ? true : undefined,
    );
    await worker.waitForOutput(/Redis answering again/, 5000);
    expect(await mealNamesAtService()).toEqual(['Acknowledged']);
    expect(await stack.db.selectFrom('meal_items').select('name').execute()).toEqual([{ name: 'Acknowledged' }]);
  }, 90_000);
});
