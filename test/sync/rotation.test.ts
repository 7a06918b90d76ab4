import { afterEach, describe, expect, it } from 'vitest';
import { endHistory, recordTurn } from '../../src/sync/history.js';
import { queueTurns } from '../../src/sync/queue.js';
import { moveRotationOn } from '../../src/sync/rotation.js';
import { historyTurnsQueued, peopleWithHistory } from '../helpers/rotation.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

/**
 * Five people in the rotation, a window of three: the first three have their turns queued, but
 * the first one's is running, so not in the queue.
 */
async function rotationOfFive() {
  stack = await startStack();
  const people = await peopleWithHistory(stack, 5);
  await queueTurns(stack.syncQueues, 'history', people.slice(1, 3));
  const rotation = { db: stack.db, queues: stack.syncQueues, window: 3 };
  const [first] = people as [number];
  return { people, rotation, first };
}

describe('the history rotation', () => {
  it('moves its window on by one when a turn ends: whoever now stands last in it is queued, not the person', async () => {
    const { people, rotation, first } = await rotationOfFive();
    await recordTurn(stack.db, first, new Date());
    await moveRotationOn(rotation, { userId: first, failures: 0 }, { next: 'again' });
    expect(await historyTurnsQueued(stack)).toEqual(people.slice(1, 4));
  });

  it('moves its window on when a history ends', async () => {
    const { people, rotation, first } = await rotationOfFive();
    await endHistory(stack.db, first);
    await moveRotationOn(rotation, { userId: first, failures: 0 }, { next: 'done' });
    expect(await historyTurnsQueued(stack)).toEqual(people.slice(1, 4));
  });

  it('keeps a retry’s turn, after its backoff, and moves the window on', async () => {
    const { people, rotation, first } = await rotationOfFive();
    await recordTurn(stack.db, first, new Date());
    await moveRotationOn(rotation, { userId: first, failures: 2 }, { next: 'retry', afterMs: 60_000 });
    expect(await historyTurnsQueued(stack)).toEqual(people.slice(1, 4));
    const [retry] = await stack.syncQueues.history.getJobs(['delayed']);
    expect(retry?.data).toEqual({ userId: first, failures: 3 });
  });

  it('queues the person’s own next turn when the whole rotation fits in the window', async () => {
    stack = await startStack();
    const people = await peopleWithHistory(stack, 2);
    const [first, second] = people as [number, number];
    await queueTurns(stack.syncQueues, 'history', [second]);
    await recordTurn(stack.db, first, new Date());
    await moveRotationOn({ db: stack.db, queues: stack.syncQueues, window: 3 }, { userId: first, failures: 0 }, { next: 'again' });
    expect(await historyTurnsQueued(stack)).toEqual([second, first]);
  });

  it('leaves a turn queued where it is when the window reaches someone already queued', async () => {
    const { people, rotation, first } = await rotationOfFive();
    await queueTurns(stack.syncQueues, 'history', [people[3]!]);
    await recordTurn(stack.db, first, new Date());
    await moveRotationOn(rotation, { userId: first, failures: 0 }, { next: 'again' });
    expect(await historyTurnsQueued(stack)).toEqual(people.slice(1, 4));
  });
});
