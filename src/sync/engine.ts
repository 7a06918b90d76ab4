import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import { runEvery } from '../background/run-every.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { isRedisUnavailable } from '../redis/redis-unavailable.js';
import { FRESH_POLL_MS, queueFreshTurns } from './fresh-poller.js';
import { scheduleKeepAlive } from './queue.js';
import { rotationHead } from './rotation.js';
import { QUEUE_LOSS_CHECK_MS, sweepWhenDue } from './sweeper.js';
import { createSyncWorkers, type SyncWorkerSettings } from './lane-workers.js';

export interface SyncEngineSettings extends Omit<SyncWorkerSettings, 'rotationHead'> {
  /** The connection the sweeper checks the queue's mark on. */
  redis: RedisConnection;
  sweepIntervalMs: number;
  /** People at the head of the history rotation with a turn queued (ROTATION_HEAD_SIZE unless a test asks for fewer). */
  rotationHeadSize?: number;
}

/** A worker process's sync: its lane workers, and the two loops that hand them turns from the store. */
export interface SyncEngine {
  /** Stops looking for work (the loops end after their current run). */
  stopLooking(): Promise<void>;
  /** Takes no new turns and lets running ones finish. */
  closeWorkers(): Promise<void>;
}

/**
 * A loop's failures, at most one line a minute: the fresh poller runs four times a second, and the
 * database away would otherwise fill the log. An unreachable Redis is said once per reconnect
 * already (redis/redis.ts).
 */
function reportOnceAMinute(logger: Logger, what: string): (error: unknown) => void {
  let lastReportedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    if (isRedisUnavailable(error) || performance.now() - lastReportedAt < 60_000) return;
    lastReportedAt = performance.now();
    logger.error({ err: error }, `${what} (said at most once a minute while it lasts)`);
  };
}

/**
 * Starts the lane workers, then the fresh poller and the sweeper. Both loops read the store, the
 * source of truth, and only hand turns to the queues: every worker process runs them, and a queue
 * lost with Redis is filled again from the store.
 */
export async function startSyncEngine(settings: SyncEngineSettings): Promise<SyncEngine> {
  const { deps, queues, redis, prefix, turns, sweepIntervalMs, rotationHeadSize, logger } = settings;
  await scheduleKeepAlive(queues);
  const head = rotationHead();
  const workers = createSyncWorkers({ ...settings, rotationHead: head });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const loops = [
    runEvery(
      FRESH_POLL_MS,
      async () => {
        const { nextDueInMs } = await queueFreshTurns({ db: deps.db, queues, clock: deps.clock, quietMs: turns.quietMs });
        return nextDueInMs === undefined ? undefined : { runAgainInMs: nextDueInMs };
      },
      reportOnceAMinute(logger, 'fresh changes not queued'),
    ),
    runEvery(
      Math.min(QUEUE_LOSS_CHECK_MS, sweepIntervalMs),
      sweepWhenDue({ db: deps.db, queues, redis, redisPrefix: prefix, headSize: rotationHeadSize, head }, sweepIntervalMs),
      reportOnceAMinute(logger, 'sweep failed'),
    ),
  ];
  return {
    stopLooking: async () => void (await Promise.all(loops.map((loop) => loop.stop()))),
    closeWorkers: async () => void (await Promise.all(workers.map((worker) => worker.close()))),
  };
}
