import { UnrecoverableError, Worker, type ConnectionOptions, type Queue } from 'bullmq';
import { z } from 'zod';
import type { AccessTokens } from '../connections/access-token.js';
import { keepConnectionsAlive } from '../connections/keep-alive.js';
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
  /** A job whose worker died is taken up again within about twice this (BullMQ stalled-job check). */
  lockDurationMs: number;
  queue: Queue;
  deps: SyncDayDependencies;
  accessTokens: AccessTokens;
  logger: Logger;
}

/**
 * The BullMQ worker: it only parses job data and maps outcomes to the queue's terms. A 429's
 * Retry-After pauses this worker without spending an attempt; other retryable failures are
 * thrown, and BullMQ retries them with exponential backoff and jitter.
 */
export function createSyncWorker(settings: SyncWorkerSettings): Worker {
  const { connection, prefix, concurrency, rateLimitPerS, lockDurationMs, queue, deps, accessTokens, logger } = settings;
  const log = logger.child({ module: 'sync-worker' });
  const worker: Worker = new Worker(
    SYNC_QUEUE,
    async (job) => {
      if (job.name === JOB.sweep) return { swept: await sweepDirtyDays({ ...deps, queue, logger: log }) };
      if (job.name === JOB.keepAlive) return { refreshed: await keepConnectionsAlive(deps.db, accessTokens, deps.clock, log) };
      const parsed = dayJobSchema.safeParse(job.data);
      if (!parsed.success) {
        // Queued by an older version (before the date bounds, say): no retry can make it valid.
        const problem = z.prettifyError(parsed.error);
        log.warn({ data: job.data, problem }, 'day job with invalid data; not retried');
        throw new UnrecoverableError(`invalid day job data: ${problem}`);
      }
      const day = parsed.data;
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
    {
      connection,
      prefix,
      concurrency,
      limiter: { max: rateLimitPerS, duration: 1000 },
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
    },
  );
  worker.on('error', (error) => log.error({ err: error }, 'worker error'));
  worker.on('failed', (job, error) => {
    if (job && job.name !== JOB.syncDay) log.error({ job: job.name, err: error }, 'repeating job failed');
  });
  return worker;
}
