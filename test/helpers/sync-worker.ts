import { createLogger, type Logger } from '../../src/logger.js';
import { createPrometheusMetrics } from '../../src/observability/metrics.js';
import { createRedisConnection } from '../../src/redis/redis.js';
import { startSyncEngine } from '../../src/sync/engine.js';
import type { SendEntryDependencies } from '../../src/sync/send-entry.js';
import type { Stack } from './stack.js';

export interface RunningSync {
  /** Stops looking for work, lets running turns finish, and closes the connection. */
  close(): Promise<void>;
}

/**
 * A worker process's sync in this process (its lane workers, fresh poller and sweeper), on the
 * stack's queues and settings, as worker.ts builds it. `deps` defaults to the stack's own;
 * `rotationHeadSize` to the app's head of the rotation (ROTATION_HEAD_SIZE); `concurrency` (turns at once
 * in each lane) to 2.
 */
export async function startSync(
  stack: Stack,
  deps: SendEntryDependencies = stack.sendDependencies(),
  logger: Logger = createLogger('silent'),
  { rotationHeadSize, concurrency = 2 }: { rotationHeadSize?: number; concurrency?: number } = {},
): Promise<RunningSync> {
  const connection = createRedisConnection(stack.config.redis.target);
  const { sync, redis } = stack.config;
  const engine = await startSyncEngine({
    connection,
    redis: connection,
    prefix: redis.prefix,
    sweepIntervalMs: sync.sweepIntervalMs,
    concurrency,
    lockDurationMs: 30_000,
    queues: stack.syncQueues,
    turns: { quietMs: sync.quietMs, freshAttempts: sync.attempts },
    rotationHeadSize,
    deps: { ...deps, budget: stack.budget, freshAllowance: stack.freshAllowance, logger },
    accessTokens: stack.accessTokens(),
    logger,
    metrics: createPrometheusMetrics(),
  });
  return {
    close: async () => {
      await engine.stopLooking();
      await engine.closeWorkers();
      connection.disconnect();
    },
  };
}
