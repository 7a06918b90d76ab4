import { Worker, type ConnectionOptions, type Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { ServiceError } from '../provider/service-error.js';
import { syncDay, type SyncDayDependencies } from './jobs.js';
import { JOB, SYNC_QUEUE, dayJobSchema } from './queue.js';
import { sweepDirtyDays } from './sweeper.js';

export interface SyncWorkerSettings {
  connection: ConnectionOptions;
  prefix: string;
  concurrency: number;
  rateLimitPerS: number;
  queue: Queue;
  deps: SyncDayDependencies;
  logger: Logger;
}

/**
 * The BullMQ worker: it only parses job data and maps outcomes to the queue's terms. A 429's
 * Retry-After pauses this worker without spending an attempt; other retryable failures are
 * thrown, and BullMQ retries them with exponential backoff and jitter.
 */
export function createSyncWorker({ connection, prefix, concurrency, rateLimitPerS, queue, deps, logger }: SyncWorkerSettings): Worker {
  const log = logger.child({ module: 'sync-worker' });
  const worker: Worker = new Worker(
    SYNC_QUEUE,
    async (job) => {
      if (job.name === JOB.sweep) return { swept: await sweepDirtyDays(deps.db, queue) };
      const day = dayJobSchema.parse(job.data);
      try {
        const outcome = await syncDay(deps, day);
        log.info({ day, outcome, attempt: job.attemptsMade + 1 }, 'day processed');
        return { outcome };
      } catch (error) {
        log.warn({ day, err: error, attempt: job.attemptsMade + 1 }, 'day not synced yet');
        if (error instanceof ServiceError && error.retryAfterMs !== undefined) {
          await worker.rateLimit(error.retryAfterMs);
          throw Worker.RateLimitError();
        }
        throw error;
      }
    },
    { connection, prefix, concurrency, limiter: { max: rateLimitPerS, duration: 1000 } },
  );
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  return worker;
}
