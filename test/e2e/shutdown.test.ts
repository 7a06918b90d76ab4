import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Running } from '../helpers/processes.js';
import { untilReady } from '../helpers/readiness.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

const SHUTDOWN_TIMEOUT_MS = 2000;
/** Room for a busy machine; before SHUTDOWN_TIMEOUT_MS such a worker took minutes. */
const MARGIN_MS = 5000;
/** One of the worker's shutdown steps (src/worker.ts): whichever was waiting on Redis when it went away. */
const A_STEP = '(the fresh poller and the sweeper|the worker)';

let redis: DisposableRedis;
let stack: Stack;
let worker: Running;

afterEach(async () => {
  await worker.stop('SIGKILL');
  await redis.start();
  try {
    await untilReady(stack);
    await stack.close();
  } finally {
    await redis.stop();
  }
});

/** A worker process on a Redis of its own, which is then stopped. */
async function workerWithRedisDown(env: Record<string, string>): Promise<Running> {
  redis = await DisposableRedis.start();
  stack = await startStack({ env: { REDIS_URL: redis.url } });
  worker = await startWorkerEntryPoint(stack, env);
  await redis.stop();
  await worker.waitForOutput(/Redis unreachable/, 10_000);
  return worker;
}

/** The exit code, or 'still running' if the process has not exited within `ms`. */
function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'still running'> {
  return Promise.race([exited, sleep(ms).then(() => 'still running' as const)]);
}

describe('a worker whose Redis is down', () => {
  // Whether BullMQ's close finishes by itself depends on where its loop was when Redis went away,
  // so the exit code varies; what must hold is that the worker is gone by the deadline
  // (test/entry-point.test.ts shows the deadline itself on a stop that never finishes).
  it('exits within SHUTDOWN_TIMEOUT_MS of SIGTERM, saying what it gave up on if it had to', async () => {
    await workerWithRedisDown({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });

    const code = await exitWithin(worker.stop('SIGTERM'), SHUTDOWN_TIMEOUT_MS + MARGIN_MS);
    expect(code).not.toBe('still running');
    if (code !== 0) {
      expect(worker.output()).toMatch(
        new RegExp(`shutdown took longer than SHUTDOWN_TIMEOUT_MS \\(2000 ms\\): gave up waiting for ${A_STEP}`),
      );
    }
  }, 30_000);

  it('exits at once on a second SIGTERM, saying what it gave up on', async () => {
    await workerWithRedisDown({ SHUTDOWN_TIMEOUT_MS: '600000' });

    const exited = worker.stop('SIGTERM');
    // Later than a signal relayed by npm or tsx, which is not a second one.
    await sleep(1500);
    void worker.stop('SIGTERM');
    const code = await exitWithin(exited, MARGIN_MS);
    expect(code).not.toBe('still running');
    expect(code).not.toBe(0);
    expect(worker.output()).toMatch(new RegExp(`second SIGTERM: gave up waiting for ${A_STEP}`));
  }, 30_000);
});
