import type { Worker } from 'bullmq';
import { createLogger, type Logger } from '../../src/logger.js';
import { createPrometheusMetrics } from '../../src/observability/metrics.js';
import { createRedisConnection } from '../../src/queue/redis.js';
import type { SendDependencies } from '../../src/sync/sender.js';
import { createSyncWorker } from '../../src/sync/worker.js';
import type { Stack } from './stack.js';

/** A BullMQ worker of the app's own making, in this process, on the stack's queue; closing it closes its connection. */
export function startSyncWorker(stack: Stack, deps: SendDependencies, logger: Logger = createLogger('silent')): Worker {
  const connection = createRedisConnection(stack.config.redis.url);
  const worker = createSyncWorker({
    connection,
    prefix: stack.config.redis.prefix,
    concurrency: 2,
    rateLimitPerS: 50,
    lockDurationMs: 30_000,
    queue: stack.syncQueue,
    deps,
    accessTokens: stack.accessTokens(),
    logger,
    metrics: createPrometheusMetrics(),
  });
  worker.on('closed', () => connection.disconnect());
  return worker;
}
