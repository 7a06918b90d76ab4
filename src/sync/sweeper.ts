import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database.js';
import { RELEASE_IF_OWNER } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { endHistory, peopleInTurnOrder } from './history.js';
import { forgetScheduledRetries } from './outbox.js';
import { canTakeTurns, queueTurns, scheduleKeepAlive, type SyncQueues } from './queue.js';
import { HISTORY_WINDOW } from './rotation.js';

/**
 * How often each worker process looks whether Redis lost the queue (one EXISTS): a Redis restarted
 * empty or flushed is rebuilt within about this, whatever SYNC_SWEEP_INTERVAL_MS.
 */
export const QUEUE_LOSS_CHECK_MS = 1000;
/**
 * How long a rebuild keeps the other processes, which notice the loss within a second too, from
 * rebuilding at the same time: far longer than a rebuild takes (it queues one window), so a
 * rebuild whose process died is taken up once this runs out.
 */
const REBUILD_CLAIM_MS = 60_000;

export interface SweepDependencies {
  db: Db;
  queues: SyncQueues;
  redis: RedisConnection;
  /** REDIS_PREFIX: where the mark of a queue built from the store lives. */
  redisPrefix: string;
  /** People at the head of the rotation with a turn queued (HISTORY_WINDOW unless a test asks for fewer). */
  window?: number;
}

/**
 * The guarantee behind the history lane: the people at the head of the rotation, its window
 * (rotation.ts), have a turn queued, whatever was lost. Turns already queued keep their place. A
 * person whose turn was lost stops taking turns, so they soon rank among the longest waiting and get
 * one again. A Redis that lost everything (restarted empty, flushed, failed over to an empty
 * replica) lost the mark below, and then the window is queued again, in the rotation's order, with
 * the keep-alive's schedule, and the retries the lost queue held are forgotten, so that the fresh
 * poller takes their changes up again now instead of waiting for a retry that will never run. One
 * process rebuilds: the first to notice the loss claims the mark (SET NX with an expiry), and the
 * others go on sweeping meanwhile. Returns how many people it queued a turn for.
 */
export async function sweepHistory(deps: SweepDependencies): Promise<number> {
  const { redis, redisPrefix } = deps;
  const mark = markKey(redisPrefix);
  const claim = `rebuilding ${randomUUID()}`;
  const lost = (await redis.set(mark, claim, 'PX', REBUILD_CLAIM_MS, 'NX')) === 'OK';
  if (!lost) return await queueWindow(deps);
  try {
    return await rebuild(deps);
  } catch (error) {
    // Left to the next look, rather than to the claim's running out.
    await redis.eval(RELEASE_IF_OWNER, 1, mark, claim);
    throw error;
  }
}

/** A turn for the people in the rotation's window, those whose last turn is longest ago first, unless queued already. */
async function queueWindow({ db, queues, window = HISTORY_WINDOW }: SweepDependencies): Promise<number> {
  const people = await peopleInTurnOrder(db, window);
  const ready = people.map((person) => person.userId).filter(canTakeTurns);
  // A user id no turn can be queued for (a hand edit) would come first in every sweep.
  for (const { userId } of people) if (!canTakeTurns(userId)) await endHistory(db, userId);
  await queueTurns(queues, 'history', ready);
  return ready.length;
}

/**
 * Forgets the lost queue's retries, once: a rebuild that failed after forgetting them (the database
 * or Redis away) does not forget again, when it is tried anew, the retries the new queue has
 * scheduled meanwhile.
 */
async function rebuild(deps: SweepDependencies): Promise<number> {
  const { db, queues, redis, redisPrefix } = deps;
  const forgotten = retriesForgottenKey(redisPrefix);
  if ((await redis.exists(forgotten)) === 0) {
    await forgetScheduledRetries(db);
    await redis.set(forgotten, new Date().toISOString(), 'PX', 10 * REBUILD_CLAIM_MS);
  }
  const queued = await queueWindow(deps);
  await scheduleKeepAlive(queues);
  await redis.set(markKey(redisPrefix), new Date().toISOString());
  await redis.del(forgotten);
  return queued;
}

/** Where the mark of a queue built from the store lives: gone with everything else when Redis loses its keys. */
function markKey(redisPrefix: string): string {
  return `${redisPrefix}:sync:queue-built`;
}

/** Where a rebuild under way notes that it forgot the lost queue's retries. */
function retriesForgottenKey(redisPrefix: string): string {
  return `${redisPrefix}:sync:rebuild-forgot-retries`;
}

/** Whether Redis lost the queue since it was built (a rebuild under way counts as built). */
async function queueLost({ redis, redisPrefix }: SweepDependencies): Promise<boolean> {
  return (await redis.exists(markKey(redisPrefix))) === 0;
}

/**
 * The sweeper's loop, to be run every QUEUE_LOSS_CHECK_MS: a sweep every `intervalMs`, and one at
 * once when Redis lost the queue.
 */
export function sweepWhenDue(deps: SweepDependencies, intervalMs: number): () => Promise<void> {
  let sweptAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (performance.now() - sweptAt < intervalMs && !(await queueLost(deps))) return;
    sweptAt = performance.now();
    await sweepHistory(deps);
  };
}
