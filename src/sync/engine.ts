import type { Redis } from 'ioredis';
import { isRedisUnavailable } from '../queue/redis-unavailable.js';
import { FRESH_POLL_MS, queueFreshTurns } from './fresh-poller.js';
import { scheduleKeepAlive } from './queue.js';
import { repeat } from './repeat.js';
import { sweepHistory } from './sweeper.js';
import { createSyncWorkers, type SyncWorkerSettings } from './worker.js';

export interface SyncEngineSettings extends SyncWorkerSettings {
  /** The connection the sweeper checks the queue's mark on. */
  redis: Redis;
  sweepIntervalMs: number;
}

/** A worker process's sync: its lane workers, and the two loops that hand them turns from the store. */
export interface SyncEngine {
  /** Stops looking for work (the loops end after their current run). */
  stopLooking(): Promise<void>;
  /** Takes no new turns and lets running ones finish. */
  closeWorkers(): Promise<void>;
}

/**
 * Starts the lane workers, then the fresh poller and the sweeper. Both loops read the store, the
 * source of truth, and only hand turns to the queues: every worker process runs them, and a queue
 * lost with Redis is filled again from the store.
 */
export async function startSyncEngine(settings: SyncEngineSettings): Promise<SyncEngine> {
  const { deps, queues, redis, prefix, turns, sweepIntervalMs, logger } = settings;
  await scheduleKeepAlive(queues);
  const workers = createSyncWorkers(settings);
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const reportFailure = (what: string) => (error: unknown) => {
    if (!isRedisUnavailable(error)) logger.error({ err: error }, what);
  };
  const loops = [
    repeat(() => queueFreshTurns({ db: deps.db, queues, clock: deps.clock, quietMs: turns.quietMs }), FRESH_POLL_MS, reportFailure('fresh changes not queued')),
    repeat(() => sweepHistory({ db: deps.db, queues, redis, redisPrefix: prefix }), sweepIntervalMs, reportFailure('sweep failed')),
  ];
  return {
    stopLooking: async () => void (await Promise.all(loops.map((loop) => loop.stop()))),
    closeWorkers: async () => void (await Promise.all(workers.map((worker) => worker.close()))),
  };
}
