import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB, LANES, turnJobSchema } from '../../src/sync/queue.js';
import { connectedUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { serviceDay, writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * Redis emptied (FLUSHDB) under running processes while a day waits for its retry: the queued retry
 * is gone with everything else, and the store must bring the day back to the queue, at once rather
 * than at the next sweep.
 */

/** The production default: the next sweep is far off. */
const SWEEP_INTERVAL_MS = 30_000;
/** Each worker looks for the loss every second; room for a busy machine. */
const BACK_WITHIN_MS = 5000;
const DAY = '2026-05-04';
/** Long enough after the flush that a day sent on time cannot have waited for it. */
const RETRY_AT_LEAST_MS = 6000;

let redis: DisposableRedis;
let stack: Stack;
let worker: Running;
let client: CookieClient;
let userId: number;

beforeAll(async () => {
  redis = await DisposableRedis.start();
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { REDIS_URL: redis.url } });
  ({ client, userId } = await connectedUser(stack));
  worker = await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '300', SYNC_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS) });
}, 60_000);

afterAll(async () => {
  await worker.stop('SIGTERM');
  await stack.close();
  await redis.stop();
});

/**
 * When the day's retry is due, as the store has it, once one is scheduled that far ahead and its
 * turn waits in Redis: the worker records the retry in the store before it queues the turn, and a
 * flush between the two would lose nothing.
 */
async function retryScheduledAtLeast(aheadMs: number): Promise<number | undefined> {
  const row = await stack.db
    .selectFrom('outbox')
    .select('next_attempt_at')
    .where('user_id', '=', userId)
    .where('subject', '=', DAY)
    .executeTakeFirst();
  const dueAt = row?.next_attempt_at ? Date.parse(row.next_attempt_at) : undefined;
  if (dueAt === undefined || dueAt - Date.now() < aheadMs) return undefined;
  return (await retryTurnQueued()) ? dueAt : undefined;
}

async function retryTurnQueued(): Promise<boolean> {
  for (const lane of LANES) {
    const delayed = await stack.syncQueues[lane].getDelayed();
    if (delayed.some((job) => job.name === JOB.turn && turnJobSchema.safeParse(job.data).data?.userId === userId)) return true;
  }
  return false;
}

async function dayAtService(): Promise<true | undefined> {
  return (await serviceDay(stack, 'Ana', DAY)) ? true : undefined;
}

describe('a Redis flushed while a day waits for its retry', () => {
  it('gets the day to the service within seconds of the service answering again, not at the next sweep nor at the retry the flush lost', async () => {
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['500'], faultTargets: ['data'] });
    await writeDay(client, DAY);
    const retryDueAt = await eventually('a retry scheduled seconds ahead', () => retryScheduledAtLeast(RETRY_AT_LEAST_MS), 40_000);

    await stack.redis.flushdb();
    await stack.changeSandbox({ faultRate: 0 });
    const answering = Date.now();
    await eventually('the day to reach the service', dayAtService, 30_000);
    const arrived = Date.now();

    expect(arrived).toBeLessThan(retryDueAt);
    expect(arrived - answering).toBeLessThan(BACK_WITHIN_MS);
  }, 90_000);
});
