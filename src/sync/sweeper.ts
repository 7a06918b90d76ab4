import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database.js';
import { RELEASE_IF_OWNER } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { forgetScheduledRetries } from './outbox.js';
import { scheduleKeepAlive, type SyncQueues } from './queue.js';
import { ROTATION_HEAD_SIZE, queueRotationHead, rotationHead, type RotationDependencies, type RotationHead } from './rotation.js';

/**
 * How often each worker process looks whether Redis lost the queue (one EXISTS) and whether the
 * head of the rotation runs short in it (one count): a Redis restarted empty or flushed is rebuilt,
 * and the head topped up, within about this, whatever SYNC_SWEEP_INTERVAL_MS.
 */
export const QUEUE_LOSS_CHECK_MS = 1000;
/**
 * How long a rebuild keeps the other processes, which notice the loss within a second too, from
 * rebuilding at the same time: far longer than a rebuild takes (it queues the head of the
 * rotation), so a rebuild whose process died is taken up once this runs out. The others top up the
 * head meanwhile.
 */
const REBUILD_CLAIM_MS = 60_000;

export interface SweepDependencies {
  db: Db;
  queues: SyncQueues;
  redis: RedisConnection;
  /** REDIS_PREFIX: where the mark of a queue built from the store lives. */
  redisPrefix: string;
  /** People at the head of the rotation with a turn queued (ROTATION_HEAD_SIZE unless a test asks for fewer). */
  headSize?: number;
  /** What the sweeps find at the head, for the process's history turns (rotation.ts); a sweep on its own keeps it to itself. */
  head?: RotationHead;
}

/**
 * The guarantee behind the history lane: the people at the head of the rotation (rotation.ts) have
 * a turn queued, whatever was lost. Turns already queued keep their place; a person whose turn was
 * lost stops taking turns, so they stay at the head and get one at the next sweep. A Redis that
 * lost everything (restarted empty, flushed, failed over to an empty replica) lost the mark below,
 * and then the head is queued again with the keep-alive's schedule, and the retries the lost queue
 * held are forgotten, so that the fresh poller takes their changes up again now instead of waiting
 * for a retry that will never run. One process rebuilds: the first to notice the loss claims the
 * mark (SET NX with an expiry), and the others go on sweeping meanwhile. Returns how many people
 * stand at the head.
 */
export async function sweepHistory(deps: SweepDependencies): Promise<number> {
  const { redis, redisPrefix } = deps;
  const mark = markKey(redisPrefix);
  const claim = `rebuilding ${randomUUID()}`;
  const lost = (await redis.set(mark, claim, 'PX', REBUILD_CLAIM_MS, 'NX')) === 'OK';
  if (!lost) return await queueRotationHead(rotationOf(deps));
  try {
    return await rebuild(deps);
  } catch (error) {
    // Left to the next look, rather than to the claim's running out.
    await redis.eval(RELEASE_IF_OWNER, 1, mark, claim);
    throw error;
  }
}

function rotationOf({ db, queues, headSize = ROTATION_HEAD_SIZE, head = rotationHead() }: SweepDependencies): RotationDependencies {
  return { db, queues, headSize, head };
}

/**
 * Forgets the lost queue's retries once: a rebuild that failed after forgetting them (the database
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
  const atHead = await queueRotationHead(rotationOf(deps));
  await scheduleKeepAlive(queues);
  await redis.set(markKey(redisPrefix), new Date().toISOString());
  await redis.del(forgotten);
  return atHead;
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
 * Whether fewer than half of the people found at the head by the last sweep still wait in the
 * queue: turns ended meanwhile and sent them to the back of the rotation. At least one, so that
 * the lane does not wait for SYNC_SWEEP_INTERVAL_MS when histories begin after a sweep found none.
 */
async function headRunningShort({ queues }: SweepDependencies, lastHead: number): Promise<boolean> {
  return (await queues.history.getWaitingCount()) < Math.max(1, lastHead / 2);
}

/**
 * The sweeper's loop, to be run every QUEUE_LOSS_CHECK_MS: a sweep every `intervalMs`, and one at
 * once when Redis lost the queue or the head of the rotation runs short in it.
 */
export function sweepWhenDue(deps: SweepDependencies, intervalMs: number): () => Promise<void> {
  let sweptAt = Number.NEGATIVE_INFINITY;
  let lastHead = 0;
  return async () => {
    const due = performance.now() - sweptAt >= intervalMs || (await queueLost(deps)) || (await headRunningShort(deps, lastHead));
    if (!due) return;
    sweptAt = performance.now();
    lastHead = await sweepHistory(deps);
  };
}
