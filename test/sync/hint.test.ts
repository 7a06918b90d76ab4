import { Worker } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createHistoryHint } from '../../src/sync/hint.js';
import { closeSyncQueues, createSyncQueues, queueTurns, SYNC_QUEUES, turnJobSchema } from '../../src/sync/queue.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

const connection = { url: inject('redisUrl'), maxRetriesPerRequest: null };
const prefix = testRedisPrefix();
const queues = createSyncQueues(connection, prefix);

afterAll(async () => {
  await closeSyncQueues(queues);
});

/** The people whose history turns a worker takes, in the order it takes them, until `count`. */
async function turnOrder(count: number): Promise<number[]> {
  const order: number[] = [];
  let allTaken = () => {};
  const taken = new Promise<void>((resolve) => (allTaken = resolve));
  const worker = new Worker(
    SYNC_QUEUES.history,
    async (job) => {
      order.push(turnJobSchema.parse(job.data).userId);
      if (order.length === count) allTaken();
    },
    { connection, prefix, concurrency: 1 },
  );
  await taken;
  await worker.close();
  return order;
}

describe('the hint of an import', () => {
  it("gives a history that begins its first turn ahead of everyone's waiting", async () => {
    const hint = createHistoryHint(queues, createLogger('silent'));
    await queueTurns(queues, 'history', [1, 2, 3]);
    await hint(5, { began: true });
    expect(await turnOrder(4)).toEqual([5, 1, 2, 3]);
  });

  it('queues no turn for a history under way: it keeps its place in the rotation, and growing earns it no turn', async () => {
    const hint = createHistoryHint(queues, createLogger('silent'));
    await queueTurns(queues, 'history', [8, 9]);
    await hint(10, { began: false });
    await hint(9, { began: false });
    expect(await turnOrder(2)).toEqual([8, 9]);
    expect(await queues.history.getWaitingCount()).toBe(0);
  });

  it('leaves a turn already queued where it is', async () => {
    const hint = createHistoryHint(queues, createLogger('silent'));
    await queueTurns(queues, 'history', [6, 7]);
    await hint(7, { began: true });
    expect(await turnOrder(2)).toEqual([6, 7]);
  });
});
