import { afterEach, describe, expect, it } from 'vitest';
import { recordingStatements } from '../../src/dev/recorded-statements.js';
import { createLogger } from '../../src/logger.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { JOB, queueTurns, removeQueuedTurns } from '../../src/sync/queue.js';
import { endHistory } from '../../src/sync/history.js';
import { sweepWhenDue } from '../../src/sync/sweeper.js';
import { connectedPerson, peopleWithHistory } from '../helpers/history.js';
import { serviceDays } from '../helpers/kinds.js';
import { upsertsThrough } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

/**
 * The history lane queues only the head of the rotation (src/sync/rotation.ts): these tests run it
 * with a head far smaller than the number of people, as a launch of 100,000 people runs it.
 */

let stack: Stack;
let sync: RunningSync | undefined;

afterEach(async () => {
  await sync?.close();
  sync = undefined;
  await stack.close();
});

const HOUR_MS = 3_600_000;

/** The people whose history turns are waiting in the queue, in its order. */
async function historyTurnsWaiting(): Promise<number[]> {
  const waiting = await stack.syncQueues.history.getJobs(['waiting'], 0, -1, true);
  return waiting.filter((job) => job.name === JOB.turn).map((job) => (job.data as { userId: number }).userId);
}

/** The history turns taken so far, per person. */
async function historyTurnsTaken(): Promise<Map<number, number>> {
  const jobs = await stack.syncQueues.history.getJobs(['completed'], 0, -1);
  const taken = new Map<number, number>();
  for (const job of jobs.filter((job) => job.name === JOB.turn)) {
    const { userId } = job.data as { userId: number };
    taken.set(userId, (taken.get(userId) ?? 0) + 1);
  }
  return taken;
}

/**
 * The mark a worker leaves once it built the queue: the sweeps below are those of a running app, not
 * a rebuild (which would queue the keep-alive's first job, waiting like a turn with no worker here).
 */
async function queueBuiltEarlier(): Promise<void> {
  await stack.redis.set(`${stack.config.redis.prefix}:sync:queue-built`, new Date().toISOString());
}

const sweepDeps = (headSize: number) => ({
  db: stack.db,
  queues: stack.syncQueues,
  redis: stack.redis,
  redisPrefix: stack.config.redis.prefix,
  headSize,
});

/** Each person's history: at 20 requests/s shared by a head of two, more than one turn's worth (up to 2 s each). */
const HISTORY_DAYS = 30;

describe('the rotation, with more people than its head', () => {
  it('sends everyone’s history in turns that go round everyone, while the queue holds no more than the head', async () => {
    stack = await startStack({ env: { ATHLETE_RATE_LIMIT_PER_S: '20' } });
    const athletes = ['A', 'B', 'C', 'D', 'E', 'F'];
    for (const athlete of athletes) await connectedPerson(stack, athlete, HISTORY_DAYS);
    // Connect queued each person's first turn; the head of two is what is queued from then on.
    sync = await startSync(stack, undefined, undefined, { rotationHeadSize: 2 });
    const mostWaiting: number[] = [];
    const spreads: number[] = [];
    await eventually(
      'every history to be sent',
      async () => {
        const taken = await historyTurnsTaken();
        if (taken.size === athletes.length) {
          mostWaiting.push((await historyTurnsWaiting()).length);
          spreads.push(Math.max(...taken.values()) - Math.min(...taken.values()));
        }
        const days = await Promise.all(athletes.map((athlete) => serviceDays(stack, athlete)));
        return days.every((sent) => sent.length === HISTORY_DAYS) ? true : undefined;
      },
      60_000,
    );
    expect(Math.max(...mostWaiting)).toBeLessThanOrEqual(2);
    // Until the first history ended, everyone had had as many turns as anyone, give or take one.
    expect(spreads.length).toBeGreaterThan(0);
    expect(spreads[0]).toBeLessThanOrEqual(1);
    for (const athlete of athletes) expect((await serviceDays(stack, athlete)).filter((day) => day.writes !== 1)).toEqual([]);
  }, 90_000);

  it('sends someone whose turn failed to the back of the rotation until its backoff ends: they do not hold a place at its head', async () => {
    stack = await startStack();
    await connectedPerson(stack, 'Failing', 2);
    const { id: failing } = await stack.db.selectFrom('histories').select('user_id as id').executeTakeFirstOrThrow();
    const api = upsertsThrough(stack.serviceApi(), () =>
      Promise.reject(new ServiceError('retryable', 'HTTP 503: temporarily_unavailable')),
    );
    sync = await startSync(stack, stack.sendDependencies(api), createLogger('silent'), { rotationHeadSize: 2 });
    await eventually('the failing turn to end', async () => ((await historyTurnsTaken()).get(failing) ? true : undefined));

    const { last_turn_at } = await stack.db
      .selectFrom('histories')
      .select('last_turn_at')
      .where('user_id', '=', failing)
      .executeTakeFirstOrThrow();
    expect(Date.parse(last_turn_at)).toBeGreaterThan(Date.now() + 200);
    await sync.close();
    sync = undefined;
    await stack.syncQueues.history.drain(true);
    // Others whose turns ended just after it: they go first, the failing person waits for its backoff.
    const people = await peopleWithHistory(stack, 2);
    await stack.db.updateTable('histories').set({ last_turn_at: new Date().toISOString() }).where('user_id', 'in', people).execute();
    await queueBuiltEarlier();
    await sweepWhenDue(sweepDeps(2), HOUR_MS)();
    expect(await historyTurnsWaiting()).toEqual(people);
  });
});

describe('the sweeper, between two sweeps', () => {
  it('tops the head up within a look once fewer than half of it wait (turns ended, a Disconnect dropped one), and reads nothing otherwise', async () => {
    stack = await startStack();
    const people = await peopleWithHistory(stack, 10);
    await queueBuiltEarlier();
    const recording = recordingStatements(stack.db);
    const look = sweepWhenDue({ ...sweepDeps(4), db: recording.db }, HOUR_MS);
    await look();
    expect(await historyTurnsWaiting()).toEqual(people.slice(0, 4));

    // One person disconnected: half of the head still waits, enough until the next sweep.
    await endHistory(stack.db, people[0]!);
    await removeQueuedTurns(stack.syncQueues, people[0]!);
    const statementsBefore = recording.on('histories').length;
    await look();
    expect(recording.on('histories').length).toBe(statementsBefore);
    expect(await historyTurnsWaiting()).toEqual(people.slice(1, 4));

    // Two more took their turns and went to the back of the rotation: the head is topped up.
    for (const userId of people.slice(1, 3)) {
      await removeQueuedTurns(stack.syncQueues, userId);
      await stack.db.updateTable('histories').set({ last_turn_at: new Date().toISOString() }).where('user_id', '=', userId).execute();
    }
    await look();
    expect(await historyTurnsWaiting()).toEqual([people[3], ...people.slice(4, 7)]);
  });

  it('queues a history that began after a sweep found none within a look, not at the next sweep', async () => {
    stack = await startStack();
    await queueBuiltEarlier();
    const look = sweepWhenDue(sweepDeps(4), HOUR_MS);
    await look();
    expect(await historyTurnsWaiting()).toEqual([]);
    const [person] = await peopleWithHistory(stack, 1);
    await look();
    expect(await historyTurnsWaiting()).toEqual([person]);
    await queueTurns(stack.syncQueues, 'history', [person!]);
    expect(await historyTurnsWaiting()).toEqual([person]);
  });
});
