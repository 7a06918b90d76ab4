import { performance } from 'node:perf_hooks';
import { ErrorCode, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { z } from 'zod';
import type { AccessTokens } from '../connections/access-token.js';
import { keepConnectionsAlive } from '../connections/keep-alive.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../observability/log-context.js';
import type { Metrics } from '../observability/metrics.js';
import type { Lane } from '../budget/request-budget.js';
import { logUnlessRedisUnreachable } from '../redis/redis.js';
import { recordTurn } from './history.js';
import { JOB, LANES, SYNC_QUEUES, queueNextTurn, turnJobSchema, type SyncQueues, type TurnJob } from './queue.js';
import type { RotationHead } from './rotation.js';
import { backoffMs, delayOf, takeTurn, type TurnDependencies, type TurnNext, type TurnOutcome, type TurnSettings } from './turn.js';

export interface SyncWorkerSettings {
  connection: ConnectionOptions;
  prefix: string;
  /** Turns one process runs at once in each lane; each mostly waits for the service or the budget. */
  concurrency: number;
  /**
   * How long a job's lock outlives a worker that stopped renewing it (killed, or its event loop
   * frozen). BullMQ's stalled-job check, every half of it, queues such a job again: a dead worker's
   * turn is taken up within about one and a half times this.
   */
  lockDurationMs: number;
  queues: SyncQueues;
  turns: TurnSettings;
  /** What the process's sweeper last found at the head of the history rotation. */
  rotationHead: RotationHead;
  deps: TurnDependencies;
  accessTokens: AccessTokens;
  logger: Logger;
  metrics: Metrics;
}

/** What a job returns: the turn's next step and how many entries it sent, or 'done' and a count for the keep-alive. */
interface JobResult {
  outcome: string;
  sent?: number;
  refreshed?: number;
}

/**
 * A BullMQ worker per lane: it parses the job, runs the turn (turn.ts) and queues what comes next.
 * Pacing is the request budget's (shared by every process), not BullMQ's limiter, which counts jobs
 * rather than requests.
 */
export function createSyncWorkers(settings: SyncWorkerSettings): Worker[] {
  return LANES.map((lane) => createLaneWorker(settings, lane));
}

function createLaneWorker(settings: SyncWorkerSettings, lane: Lane): Worker {
  const { connection, prefix, concurrency, lockDurationMs, queues, turns, deps, accessTokens, logger, metrics } = settings;
  const log = logger.child({ module: 'sync-worker', lane });

  /**
   * What comes after a turn: the person's next fresh turn, or their next history turn, which is
   * theirs to queue only while everyone with history fits in the head of the rotation (rotation.ts);
   * further back, the sweeper queues it when the rotation reaches them.
   */
  async function queueWhatComesNext({ userId, failures }: TurnJob, next: TurnNext): Promise<void> {
    if (next.next === 'done') return;
    const nextLane = next.next === 'history' ? 'history' : lane;
    if (nextLane === 'history' && !settings.rotationHead.everyoneFits) return;
    const job = { userId, failures: next.next === 'retry' ? failures + 1 : 0 };
    await queueNextTurn(queues, nextLane, job, delayOf(next));
  }

  /**
   * A history turn that failed without an answer to go by still sends its person to the back of the
   * rotation until its backoff ends, as a failed upsert does (turn.ts), so that people whose turns
   * keep failing do not hold the head against everyone else. With the store away it cannot: their
   * place stays, and so does everyone else's.
   */
  async function waitBehindEveryone(userId: number, backoffMs: number): Promise<void> {
    await recordTurn(deps.db, userId, deps.clock(), backoffMs).catch((error: unknown) =>
      log.warn({ userId, err: error }, 'could not move the person behind the rotation for their backoff'),
    );
  }

  async function runJob(job: Job): Promise<JobResult> {
    if (job.name === JOB.keepAlive) {
      return { outcome: 'done', refreshed: await keepConnectionsAlive(deps.db, accessTokens, deps.clock, log) };
    }
    const parsed = turnJobSchema.safeParse(job.data);
    if (!parsed.success) {
      // Queued by another version: no retry can make it valid. The sweeper queues the person's turn anew.
      const problem = z.prettifyError(parsed.error);
      log.warn({ data: job.data, problem }, 'sync job with invalid data; not retried');
      throw new UnrecoverableError(`invalid sync job data: ${problem}`);
    }
    const { userId, failures } = parsed.data;
    let outcome: TurnOutcome;
    try {
      outcome = await takeTurn({ ...deps, logger: log }, turns, lane, userId, failures);
    } catch (error) {
      // Not the service's answer (the database or Redis away, a bug): backed off like a failure,
      // so that the store's loops, which find the same entries again, do not run it in a loop.
      log.error({ userId, err: error }, 'turn failed; retried after a backoff');
      const retry = { next: 'retry', afterMs: backoffMs(failures + 1) } as const;
      if (lane === 'history') await waitBehindEveryone(userId, retry.afterMs);
      await queueWhatComesNext(parsed.data, retry);
      throw error;
    }
    await queueWhatComesNext(parsed.data, outcome.next);
    return { outcome: outcome.next.next, sent: outcome.sent };
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
        outcome = error instanceof UnrecoverableError ? 'invalid' : 'error';
        throw error;
      } finally {
        metrics.jobDone({ kind: `${lane}-${job.name}`, outcome }, (performance.now() - started) / 1000);
      }
    });
  }

  const worker = new Worker(SYNC_QUEUES[lane], observedJob, {
    connection,
    prefix,
    concurrency,
    lockDuration: lockDurationMs,
    // One check per interval for all processes together; it reads only the running jobs, however many wait.
    stalledInterval: Math.ceil(lockDurationMs / 2),
  });
  worker.on('error', reportWorkerError(log));
  worker.on('stalled', (jobId) => log.warn({ jobId }, 'job of a worker that stopped renewing its lock queued again'));
  worker.on('failed', (job, error) => {
    if (job?.name !== JOB.turn) log.error({ job: job?.name, err: error }, 'repeating job failed');
  });
  return worker;
}

/**
 * BullMQ's answers when a turn that ended is no longer its worker's to finish: its job left Redis
 * (a Redis that lost its keys: every turn running then ends so) or its lock ran out and another
 * worker took it up. Nothing is lost either way: what the turn sent is in the store, and the
 * sweeper and the fresh poller queue what is left.
 */
const JOB_NO_LONGER_OURS: ReadonlySet<unknown> = new Set([ErrorCode.JobNotExist, ErrorCode.JobLockNotExist, ErrorCode.JobNotInState]);

function reportWorkerError(log: Logger): (error: Error) => void {
  const reportOthers = logUnlessRedisUnreachable(log, 'worker error');
  return (error) => {
    if ('code' in error && JOB_NO_LONGER_OURS.has(error.code)) {
      log.warn(
        { reason: error.message },
        'a turn ended after its job left Redis or passed to another worker; what it sent is in the store',
      );
    } else reportOthers(error);
  };
}
