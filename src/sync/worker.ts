import { performance } from 'node:perf_hooks';
import { RateLimitError, UnrecoverableError, Worker, type ConnectionOptions, type Job, type Queue } from 'bullmq';
import { z } from 'zod';
import type { AccessTokens } from '../connections/access-token.js';
import { keepConnectionsAlive } from '../connections/keep-alive.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../observability/log-context.js';
import type { Metrics } from '../observability/metrics.js';
import { ServiceError } from '../provider/service-error.js';
import { logUnlessRedisUnreachable } from '../queue/redis.js';
import { syncEntry, type SyncEntryDependencies } from './jobs.js';
import { recordNextAttempt, type OutboxKey } from './outbox.js';
import { JOB, SYNC_QUEUE, entryJobSchema } from './queue.js';
import { sweepDirtyEntries } from './sweeper.js';

export interface SyncWorkerSettings {
  connection: ConnectionOptions;
  prefix: string;
  concurrency: number;
  rateLimitPerS: number;
  /** A job whose worker died is taken up again within about twice this (BullMQ stalled-job check). */
  lockDurationMs: number;
  queue: Queue;
  deps: SyncEntryDependencies;
  accessTokens: AccessTokens;
  logger: Logger;
  metrics: Metrics;
}

/** What a job returns: an entry's SyncEntryOutcome, or 'done' and a count for the repeating jobs. */
interface JobResult {
  outcome: string;
  swept?: number;
  refreshed?: number;
}

/**
 * The BullMQ worker: it only parses job data and maps outcomes to the queue's terms. A 429's
 * Retry-After pauses this worker without spending an attempt; other retryable failures are
 * thrown, and BullMQ retries them with exponential backoff and jitter.
 */
export function createSyncWorker(settings: SyncWorkerSettings): Worker {
  const { connection, prefix, concurrency, rateLimitPerS, lockDurationMs, queue, deps, accessTokens, logger, metrics } = settings;
  const log = logger.child({ module: 'sync-worker' });

  async function runJob(job: Job): Promise<JobResult> {
    if (job.name === JOB.sweep) return { outcome: 'done', swept: await sweepDirtyEntries({ ...deps, queue, logger: log }) };
    if (job.name === JOB.keepAlive) {
      return { outcome: 'done', refreshed: await keepConnectionsAlive(deps.db, accessTokens, deps.clock, log) };
    }
    const parsed = entryJobSchema.safeParse(job.data);
    if (!parsed.success) {
      // Queued by an older version (before the date bounds, say): no retry can make it valid.
      const problem = z.prettifyError(parsed.error);
      log.warn({ data: job.data, problem }, 'sync job with invalid data; not retried');
      throw new UnrecoverableError(`invalid sync job data: ${problem}`);
    }
    const entry = parsed.data;
    try {
      const outcome = await syncEntry(deps, entry);
      log.info({ entry, outcome, attempt: job.attemptsMade + 1 }, 'entry processed');
      return { outcome };
    } catch (error) {
      log.warn({ entry, err: error, attempt: job.attemptsMade + 1 }, 'entry not synced yet');
      if (error instanceof ServiceError && error.retryAfterMs !== undefined) {
        await worker.rateLimit(error.retryAfterMs);
        await recordNextAttempt(deps.db, entry, new Date(deps.clock().getTime() + error.retryAfterMs));
        throw Worker.RateLimitError();
      }
      throw error;
    }
  }

  /** Every line a job logs, wherever it is written, carries the job's id; every job is counted. */
  function observedJob(job: Job): Promise<JobResult> {
    return withLogContext({ jobId: String(job.id) }, async () => {
      const started = performance.now();
      let outcome = 'error';
      try {
        const result = await runJob(job);
        outcome = result.outcome;
        return result;
      } catch (error) {
        outcome = errorOutcome(error);
        throw error;
      } finally {
        metrics.jobDone({ kind: job.name, outcome }, (performance.now() - started) / 1000);
      }
    });
  }

  const worker: Worker = new Worker(
    SYNC_QUEUE,
    observedJob,
    {
      connection,
      prefix,
      concurrency,
      limiter: { max: rateLimitPerS, duration: 1000 },
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
    },
  );
  worker.on('error', logUnlessRedisUnreachable(log, 'worker error'));
  worker.on('failed', (job, error) => {
    if (job && job.name !== JOB.syncEntry) log.error({ job: job.name, err: error }, 'repeating job failed');
    const entry = entryJobSchema.safeParse(job?.data).data;
    if (job && entry) recordRetry(job, entry).catch((err: unknown) => log.warn({ entry, err }, 'next attempt not recorded'));
  });

  /**
   * BullMQ emits 'failed' after scheduling the retry, with the job's backoff in `delay`; a job
   * failed for good has `finishedOn`, and its entry waits for the sweeper (its next try unknown).
   */
  async function recordRetry(job: Job, entry: OutboxKey): Promise<void> {
    if (job.finishedOn !== undefined || job.delay <= 0) return;
    await recordNextAttempt(deps.db, entry, new Date(deps.clock().getTime() + job.delay));
  }
  return worker;
}

function errorOutcome(error: unknown): string {
  if (error instanceof UnrecoverableError) return 'invalid';
  if (error instanceof RateLimitError) return 'rate-limited';
  return 'error';
}
