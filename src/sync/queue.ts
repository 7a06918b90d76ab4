import { Queue, type ConnectionOptions } from 'bullmq';
import { z } from 'zod';
import type { Lane } from '../budget/request-budget.js';

/**
 * The sync queues, one per lane (docs/architecture.md, "Who waits"), so that a person's fresh change
 * never waits for a worker slot that history holds. A job is one person's turn in a lane: it sends
 * a few of their entries, then queues their next turn behind everyone else's. What to send is
 * always read from the store when the turn runs; a queue lost with Redis is rebuilt from it.
 */
export const SYNC_QUEUES: Record<Lane, string> = { fresh: 'sync-fresh', history: 'sync-history' };

export const LANES = ['fresh', 'history'] as const satisfies readonly Lane[];

export type SyncQueues = Record<Lane, Queue>;

export const JOB = { turn: 'turn', keepAlive: 'keep-connections-alive' } as const;

/** How often idle connections are checked for a keep-alive refresh (connections/keep-alive.ts). */
const KEEP_ALIVE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Job data comes back from Redis: parsed like any other input from outside. `failures` counts the
 * retryable failures in a row that led to this turn, for its backoff.
 */
export const turnJobSchema = z.object({
  userId: z.number().int().positive(),
  failures: z.number().int().min(0).default(0),
});

export type TurnJob = z.infer<typeof turnJobSchema>;

/** Whether a user id read from the store can be queued at all (a hand edit may have made one 0). */
export function canTakeTurns(userId: number): boolean {
  return turnJobSchema.shape.userId.safeParse(userId).success;
}

/**
 * How long finished jobs stay in Redis (for the queue dashboard) and how many at most: BullMQ keeps
 * every one for ever unless told. The queues' defaults, so every job has them, those of the
 * keep-alive's job scheduler too (BullMQ merges the defaults into a scheduler's template).
 */
export const FINISHED_JOBS_KEPT = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
} as const;

export function createSyncQueues(connection: ConnectionOptions, prefix: string): SyncQueues {
  const queue = (lane: Lane) =>
    new Queue(SYNC_QUEUES[lane], {
      connection,
      prefix,
      // A turn retries by queuing its next turn (turn.ts); BullMQ's own retries would not know the lane's rules.
      defaultJobOptions: { attempts: 1, ...FINISHED_JOBS_KEPT },
    });
  return { fresh: queue('fresh'), history: queue('history') };
}

/** Custom ids and deduplication ids may not contain ':' (BullMQ). One job per person and lane. */
function turnKey(lane: Lane, userId: number): string {
  return `${lane}-${userId}`;
}

function turnJob(lane: Lane, data: TurnJob) {
  return { name: JOB.turn, data: turnJobSchema.parse(data), opts: { deduplication: { id: turnKey(lane, data.userId) } } };
}

/**
 * A turn for each of these people, in this order, unless one is already queued or running (the
 * fresh poller and the sweeper, every few moments: a queued turn keeps its place).
 */
export async function queueTurns(queues: SyncQueues, lane: Lane, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await queues[lane].addBulk(userIds.map((userId) => turnJob(lane, { userId, failures: 0 })));
}

/**
 * The person's next turn, at the back of the lane (after `delayMs`, to back off). Queued even while
 * their current turn runs: BullMQ adds it once that one finishes, so their turns never overlap.
 */
export async function queueNextTurn(queues: SyncQueues, lane: Lane, job: TurnJob, delayMs = 0): Promise<void> {
  const { name, data, opts } = turnJob(lane, job);
  await queues[lane].add(name, data, { delay: delayMs, deduplication: { ...opts.deduplication, keepLastIfActive: true } });
}

/**
 * The first turn of a person's history, ahead of every turn waiting (LIFO), unless a turn of theirs
 * is queued or running already.
 */
export async function queueFirstHistoryTurn(queues: SyncQueues, userId: number): Promise<void> {
  const { name, data, opts } = turnJob('history', { userId, failures: 0 });
  await queues.history.add(name, data, { ...opts, lifo: true });
}

/** Drops the person's queued turns (on Disconnect). A running one finds no connection at its next entry and ends. */
export async function removeQueuedTurns(queues: SyncQueues, userId: number): Promise<void> {
  for (const lane of LANES) {
    const key = turnKey(lane, userId);
    const jobId = await queues[lane].getDeduplicationJobId(key);
    // A running job cannot be removed; its key must stay, or a second turn could start beside it.
    if (jobId && (await queues[lane].remove(jobId)) === 1) await queues[lane].removeDeduplicationKey(key);
  }
}

/** The keep-alive, run once an hour whatever the number of worker processes (a BullMQ job scheduler). */
export async function scheduleKeepAlive(queues: SyncQueues): Promise<void> {
  await queues.history.upsertJobScheduler(JOB.keepAlive, { every: KEEP_ALIVE_INTERVAL_MS }, { name: JOB.keepAlive, opts: { attempts: 1 } });
}

export async function closeSyncQueues(queues: SyncQueues): Promise<void> {
  await Promise.all(LANES.map((lane) => queues[lane].close()));
}
