import { Worker } from 'bullmq';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createHistoryHint } from '../../src/sync/hint.js';
import { queueTurns, SYNC_QUEUES, turnJobSchema } from '../../src/sync/queue.js';
import { peopleWithHistory } from '../helpers/history.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
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
    { connection: { url: inject('redisUrl'), maxRetriesPerRequest: null }, prefix: stack.config.redis.prefix, concurrency: 1 },
  );
  await taken;
  await worker.close();
  return order;
}

const hintOf = (window?: number) => createHistoryHint(stack.db, stack.syncQueues, createLogger('silent'), window);

describe('the hint of an import', () => {
  it("gives a history that begins its first turn ahead of everyone's waiting, and one under way at the head of the rotation its turn at the back", async () => {
    stack = await startStack();
    const [first, second, third, underWay, begun] = await peopleWithHistory(stack, 5);
    await queueTurns(stack.syncQueues, 'history', [first!, second!, third!]);
    await hintOf()(underWay!, { began: false });
    await hintOf()(begun!, { began: true });
    expect(await turnOrder(5)).toEqual([begun, first, second, third, underWay]);
  });

  it('queues no turn for a history under way further back than the head of the rotation: the rotation reaches it in its order', async () => {
    stack = await startStack();
    const [first, second, third] = await peopleWithHistory(stack, 3);
    await hintOf(2)(third!, { began: false });
    await hintOf(2)(second!, { began: false });
    await queueTurns(stack.syncQueues, 'history', [first!]);
    expect(await turnOrder(2)).toEqual([second, first]);
    expect(await stack.syncQueues.history.getWaitingCount()).toBe(0);
  });

  it('leaves a turn already queued where it is', async () => {
    stack = await startStack();
    const [first, second] = await peopleWithHistory(stack, 2);
    await queueTurns(stack.syncQueues, 'history', [first!, second!]);
    await hintOf()(second!, { began: true });
    expect(await turnOrder(2)).toEqual([first, second]);
  });
});
