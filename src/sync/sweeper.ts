import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database.js';
import { RELEASE_IF_OWNER } from '../queue/redis-lock.js';
import type { RedisConnection } from '../queue/redis-target.js';
import { endHistory, peopleInTurnOrder, type TurnPosition } from './backfill.js';
import { forgetScheduledRetries } from './outbox.js';
import { canTakeTurns, queueTurns, scheduleKeepAlive, type SyncQueues } from './queue.js';

/** People whose history turn the sweeper makes sure of, per sweep; those whose turn is longest ago first. */
const SWEEP_BATCH = 1000;
/**
 * How often each worker process looks whether Redis lost the queue (one EXISTS): a Redis restarted
 * empty or flushed is rebuilt within about this, whatever SYNC_SWEEP_INTERVAL_MS.
 */
export const QUEUE_LOSS_CHECK_MS = 1000;
/**
 * How long a rebuild keeps the other processes, which notice the loss within a second too, from
 * rebuilding at the same time; one whose process died is taken up once this runs out. Queuing
 * 100,000 people again took about 20 s (docs/performance.md); one that takes longer is done twice,
 * which only costs work (a queued turn keeps its place).
 */
const REBUILD_CLAIM_MS = 60_000;

export interface SweepDependencies {
  db: Db;
  queues: SyncQueues;
  redis: RedisConnection;
  /** REDIS_PREFIX: where the mark of a queue built from the store lives. */
  redisPrefix: string;
}

/**
 * The guarantee behind the backfill lane: every person with history waiting has a turn queued,
 * whatever was lost. Turns already queued keep their place. A person whose turn was lost stops
 * taking turns, so they soon rank among the longest waiting and get one again; a Redis that lost
 * everything (restarted empty, flushed, failed over to an empty replica) lost the mark below, and
 * then the whole rotation is queued again at once, in its order, with the keep-alive's schedule,
 * and the retries the lost queue held are forgotten, so that the fresh poller takes their changes up
 * again now instead of waiting for a retry that will never run. The process that rebuilds claims
 * the mark first, so that the others go on sweeping meanwhile. Returns how many people it queued a
 * turn for.
 */
export async function sweepHistory(deps: SweepDependencies): Promise<number> {
  const { redis, redisPrefix } = deps;
  const mark = markKey(redisPrefix);
  const claim = `rebuilding ${randomUUID()}`;
  const lost = (await redis.set(mark, claim, 'PX', REBUILD_CLAIM_MS, 'NX')) === 'OK';
  try {
    return await sweepOrRebuild(deps, lost);
  } catch (error) {
    // Left to the next look, rather than to the claim's running out.
    if (lost) await redis.eval(RELEASE_IF_OWNER, 1, mark, claim);
    throw error;
  }
}

async function sweepOrRebuild({ db, queues, redis, redisPrefix }: SweepDependencies, lost: boolean): Promise<number> {
  if (lost) await forgetScheduledRetries(db);
  let queued = 0;
  for (let after: TurnPosition | undefined; ;) {
    const people = await peopleInTurnOrder(db, SWEEP_BATCH, after);
    const ready = people.map((person) => person.userId).filter(canTakeTurns);
    // A user id no turn can be queued for (a hand edit) would come first in every sweep.
    for (const { userId } of people) if (!canTakeTurns(userId)) await endHistory(db, userId);
    await queueTurns(queues, 'backfill', ready);
    queued += ready.length;
    if (!lost || people.length < SWEEP_BATCH) break;
    after = people.at(-1);
  }
  if (lost) {
    await scheduleKeepAlive(queues);
    await redis.set(markKey(redisPrefix), new Date().toISOString());
  }
  return queued;
}

/** Where the mark of a queue built from the store lives: gone with everything else when Redis loses its keys. */
function markKey(redisPrefix: string): string {
  return `${redisPrefix}:sync:queue-built`;
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
