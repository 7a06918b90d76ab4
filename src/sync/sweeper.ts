import type { Db } from '../db/database.js';
import type { RedisConnection } from '../queue/redis-target.js';
import { endHistory, peopleInTurnOrder, type TurnPosition } from './backfill.js';
import { forgetScheduledRetries } from './outbox.js';
import { canTakeTurns, queueTurns, scheduleKeepAlive, type SyncQueues } from './queue.js';

/** People whose history turn the sweeper makes sure of, per sweep; those whose turn is longest ago first. */
const SWEEP_BATCH = 1000;

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
 * again now instead of waiting for a retry that will never run. Returns how many people it queued a
 * turn for.
 */
export async function sweepHistory({ db, queues, redis, redisPrefix }: SweepDependencies): Promise<number> {
  const markKey = `${redisPrefix}:sync:queue-built`;
  const lost = (await redis.exists(markKey)) === 0;
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
    await redis.set(markKey, new Date().toISOString());
  }
  return queued;
}
