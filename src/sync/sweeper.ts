import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import type { Db } from '../db/database.js';
import { RELEASE_IF_OWNER } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { endHistory, peopleInTurnOrder, type TurnPosition } from './history.js';
import { forgetScheduledRetries } from './outbox.js';
import { canTakeTurns, queueTurns, scheduleKeepAlive, type SyncQueues } from './queue.js';

/** People whose history turn the sweeper makes sure of, per sweep; those whose turn is longest ago first. */
const SWEEP_BATCH = 1000;
/**
 * People a rebuild reads and queues at a time: one page of `histories` along its index, queued in
 * one pipelined addBulk. Small, so that Redis, which runs a pipeline's adds back to back, answers
 * the fresh lane's commands between two pages, and the process's fresh poller runs between them too.
 */
const REBUILD_BATCH = 200;
/**
 * How often each worker process looks whether Redis lost the queue (one EXISTS): a Redis restarted
 * empty or flushed is rebuilt within about this, whatever SYNC_SWEEP_INTERVAL_MS.
 */
export const QUEUE_LOSS_CHECK_MS = 1000;
/**
 * How long a rebuild keeps the other processes, which notice the loss within a second too, from
 * rebuilding at the same time; the rebuilding process renews it after each page, so one whose
 * process died is taken up once this runs out, from where it stopped (its cursor).
 */
const REBUILD_CLAIM_MS = 60_000;
/** How long a stopped rebuild's cursor waits for another process to take it up. */
const REBUILD_CURSOR_MS = 10 * REBUILD_CLAIM_MS;

/** Renews the claim only while it is still ours (atomic in Redis); 0 when another process holds the rebuild now. */
const RENEW_IF_OWNER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/** Where a rebuild stands, kept in Redis: null once the retries are forgotten and before the first page is queued. */
const rebuildCursorSchema = z.object({ userId: z.number().int(), lastTurnAt: z.string() }).nullable();

export interface SweepDependencies {
  db: Db;
  queues: SyncQueues;
  redis: RedisConnection;
  /** REDIS_PREFIX: where the mark of a queue built from the store lives. */
  redisPrefix: string;
  /** People a rebuild queues at a time (REBUILD_BATCH unless a test asks for fewer). */
  rebuildBatch?: number;
}

/**
 * The guarantee behind the history lane: every person with history waiting has a turn queued,
 * whatever was lost. Turns already queued keep their place. A person whose turn was lost stops
 * taking turns, so they soon rank among the longest waiting and get one again; a Redis that lost
 * everything (restarted empty, flushed, failed over to an empty replica) lost the mark below, and
 * then the whole rotation is queued again, in its order, with the keep-alive's schedule, and the
 * retries the lost queue held are forgotten, so that the fresh poller takes their changes up again
 * now instead of waiting for a retry that will never run. One process rebuilds: the first to notice
 * the loss claims the mark (SET NX with an expiry), and the others go on sweeping meanwhile. The
 * rebuild keeps a cursor in Redis after each page it queued, so a rebuild stopped part way (its
 * process killed, the database away) is taken up where it stopped. Returns how many people it
 * queued a turn for.
 */
export async function sweepHistory(deps: SweepDependencies): Promise<number> {
  const { redis, redisPrefix } = deps;
  const mark = markKey(redisPrefix);
  const claim = `rebuilding ${randomUUID()}`;
  const lost = (await redis.set(mark, claim, 'PX', REBUILD_CLAIM_MS, 'NX')) === 'OK';
  if (!lost) return await queueLongestWaiting(deps);
  try {
    return await rebuild(deps, claim);
  } catch (error) {
    // Left to the next look, rather than to the claim's running out; the cursor stays for it.
    await redis.eval(RELEASE_IF_OWNER, 1, mark, claim);
    throw error;
  }
}

/** A sweep: a turn for the SWEEP_BATCH people whose last turn is longest ago, unless queued already. */
async function queueLongestWaiting({ db, queues }: SweepDependencies): Promise<number> {
  return queueTurnsOf(db, queues, await peopleInTurnOrder(db, SWEEP_BATCH));
}

async function rebuild(deps: SweepDependencies, claim: string): Promise<number> {
  const { db, queues, redis, redisPrefix } = deps;
  const batch = deps.rebuildBatch ?? REBUILD_BATCH;
  const cursor = cursorKey(redisPrefix);
  const saved = savedCursor(await redis.get(cursor));
  let after = saved ?? undefined;
  if (saved === undefined) {
    await forgetScheduledRetries(db);
    await redis.set(cursor, JSON.stringify(null), 'PX', REBUILD_CURSOR_MS);
  }
  let queued = 0;
  for (;;) {
    const people = await peopleInTurnOrder(db, batch, after);
    queued += await queueTurnsOf(db, queues, people);
    after = people.at(-1) ?? after;
    if (people.length < batch) break;
    await redis.set(cursor, JSON.stringify(after), 'PX', REBUILD_CURSOR_MS);
    // Another process took the rebuild over (this one stalled past the claim): it goes on from the cursor.
    if ((await redis.eval(RENEW_IF_OWNER, 1, markKey(redisPrefix), claim, REBUILD_CLAIM_MS)) === 0) return queued;
    await setImmediate();
  }
  await scheduleKeepAlive(queues);
  await redis.set(markKey(redisPrefix), new Date().toISOString());
  await redis.del(cursor);
  return queued;
}

/** Queues a history turn for each of these people; a user id no turn can be queued for (a hand edit) would come first in every sweep. */
async function queueTurnsOf(db: Db, queues: SyncQueues, people: TurnPosition[]): Promise<number> {
  const ready = people.map((person) => person.userId).filter(canTakeTurns);
  for (const { userId } of people) if (!canTakeTurns(userId)) await endHistory(db, userId);
  await queueTurns(queues, 'history', ready);
  return ready.length;
}

/** The cursor a stopped rebuild left (null: before its first page), or undefined when none, or none this version can read: start over. */
function savedCursor(text: string | null): TurnPosition | null | undefined {
  if (text === null) return undefined;
  try {
    const parsed = rebuildCursorSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Where the mark of a queue built from the store lives: gone with everything else when Redis loses its keys. */
function markKey(redisPrefix: string): string {
  return `${redisPrefix}:sync:queue-built`;
}

/** Where a rebuild under way keeps its cursor: the last person it queued, in the rotation's order. */
function cursorKey(redisPrefix: string): string {
  return `${redisPrefix}:sync:rebuild-cursor`;
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
