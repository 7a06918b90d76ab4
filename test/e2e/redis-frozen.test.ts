import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppClient } from '../../src/kinds/workload.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { connectedUser } from '../helpers/flows.js';
import { appDay, serviceDay, workload, writeDay } from '../helpers/kinds.js';
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

/** The signed-in person on the web process; each request is given up after twice the time allowed. */
const person: AppClient = {
  request: (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', cookie);
    return fetch(`${web.url}${path}`, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(2 * ANSWER_WITHIN_MS) });
  },
};

/** The answer of the web process, or 'no answer' once the request was given up. */
async function answerOf(request: () => Promise<Response>): Promise<Answer> {
  const started = Date.now();
  try {
    const response = await request();
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: Date.now() - started };
  } catch {
    return { status: 'no answer', retryAfter: null, ms: Date.now() - started };
  }
}

const ask = (path: string) => answerOf(() => person.request(path));

describe('a Redis that stops answering, its connections left open', () => {
  it('gets every request that needs it answered 503 with Retry-After within 5 s, the worker waiting for it, and everything back, nothing acknowledged lost, once it answers', async () => {
    await writeDay(person, DAY, 0);
    const acknowledged = await appDay(person, DAY);
    // Its quiet period ends while Redis is silent: the worker hands it to the queue then, or after.
    redis.freeze();
    const answers = {
      'GET /api/me': await ask('/api/me'),
      'GET /': await ask('/'),
      [workload.write.route]: await answerOf(() => workload.write.send(person, DAY, 1)),
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
    await eventually('the acknowledged write to reach the service', async () =>
      isDeepStrictEqual((await serviceDay(stack, 'Ana', DAY))?.content, acknowledged) ? true : undefined,
    );
    await worker.waitForOutput(/Redis answering again/, 5000);
    expect((await serviceDay(stack, 'Ana', DAY))?.content).toEqual(acknowledged);
    // The refused write stored nothing.
    expect(await appDay(person, DAY)).toEqual(acknowledged);
  }, 90_000);
});
