import { loadWorkerConfig, readEnvironment } from './config.js';
import { KIND_SETTING_GROUPS } from './kinds.js';
import { finishPendingErasures } from './accounts/account-erasure.js';
import { runEvery } from './background/run-every.js';
import { accessTokensFromConfig } from './connections/access-token.js';
import { createDb } from './db/database.js';
import { assertStoreReadyWithin } from './db/store-at-start.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';
import { createMailer } from './notices/mailer.js';
import { sendDueNotices } from './notices/send-notices.js';
import { createUnsubscribeLinks } from './notices/unsubscribe-link.js';
import { serveMetrics } from './observability/metrics-server.js';
import { createPrometheusMetrics } from './observability/metrics.js';
import { observeWaitingWork } from './observability/work-gauges.js';
import { createServiceApi } from './provider/api.js';
import { createRedisConnection, logUnlessRedisUnreachable, logReconnects, untilReady } from './redis/redis.js';
import { watchForSilence } from './redis/redis-silence.js';
import { createRequestBudget } from './budget/request-budget.js';
import { startSyncEngine } from './sync/engine.js';
import { createFreshAllowance } from './sync/fresh-allowance.js';
import { closeSyncQueues, createSyncQueues } from './sync/queue.js';
import { createSenders } from './sync/senders.js';
import { endAllSessions } from './web/user-sessions.js';

runEntryPoint(async () => {
  const config = loadWorkerConfig(readEnvironment(), KIND_SETTING_GROUPS);
  const logger = createLogger(config.logLevel, 'worker');
  const db = createDb(config.database);
  const redis = createRedisConnection(config.redis.target);
  logReconnects(redis, logger, 'worker');
  // Side by side, so that STARTUP_TIMEOUT_S bounds the whole wait.
  await Promise.all([
    untilReady(redis, { target: config.redis.target, timeoutS: config.startupTimeoutS }),
    assertStoreReadyWithin(db, config.database, config.startupTimeoutS),
  ]);
  const silence = watchForSilence(redis, logger, 'worker');
  const clock = () => new Date();
  const metrics = createPrometheusMetrics();
  const { prefix } = config.redis;

  const accessTokens = accessTokensFromConfig(config, { db, redis, clock, logger, metrics });
  const api = createServiceApi(config.athlete, { accessTokens, clock, metrics });
  const queues = createSyncQueues(redis, prefix);
  for (const queue of Object.values(queues)) queue.on('error', logUnlessRedisUnreachable(logger, 'sync queue: Redis error'));
  const sync = await startSyncEngine({
    connection: redis,
    redis,
    prefix,
    sweepIntervalMs: config.sync.sweepIntervalMs,
    concurrency: config.sync.concurrency,
    lockDurationMs: config.sync.lockDurationMs,
    queues,
    turns: { quietMs: config.sync.quietMs, freshAttempts: config.sync.attempts },
    deps: {
      db,
      clock,
      senders: createSenders({ config, db, api }),
      budget: createRequestBudget({ redis, prefix, ...config.requestBudget }),
      freshAllowance: createFreshAllowance({ redis, redisPrefix: prefix, perPersonPerMinute: config.sync.freshPerPersonPerMinute }),
      logger,
    },
    accessTokens,
    logger,
    metrics,
  });
  observeWaitingWork(metrics.registry, { db, queues, clock, logger });

  const mailer = createMailer(config.mail);
  if (!mailer) logger.info('mail is off (SMTP_URL is not set): connection notices are recorded, not mailed');
  const unsubscribeLinks = createUnsubscribeLinks(config.tokenEncryption, config.appBaseUrl);
  const notices = runEvery(
    config.noticeMail.intervalMs,
    async () => {
      await sendDueNotices({ db, mailer, appBaseUrl: config.appBaseUrl, unsubscribeLinks, clock, logger });
    },
    (error) => logger.warn({ err: error }, 'connection notices not sent; the next run tries again'),
  );
  // Deletions whose Redis part was left undone (Redis was away) are finished here.
  const erasures = runEvery(
    config.sync.sweepIntervalMs,
    async () => {
      await finishPendingErasures(db, (userId) => endAllSessions({ redis, redisPrefix: prefix }, userId));
    },
    (error) => logger.warn({ err: error }, 'deleted accounts not yet forgotten in Redis; the next run tries again'),
  );
  const metricsServer = await serveMetrics(config.metrics, metrics.registry, logger);
  logger.info({ concurrency: config.sync.concurrency }, 'worker ready');

  closeOnSignal(
    [
      { what: 'the fresh poller and the sweeper', close: () => sync.stopLooking() },
      // Takes no new jobs and lets running ones finish. Every token refresh of this process runs
      // inside a job (a turn, the keep-alive), so a rotated refresh token is stored before the exit.
      // A turn cut short by a kill is taken up again, its entries still dirty, and a refresh cut
      // short leaves its lease behind for the next worker (connections/access-token.ts).
      { what: 'the workers (their running turns and token refreshes)', close: () => sync.closeWorkers() },
      { what: 'the connection mails being sent', close: () => notices.stop() },
      { what: 'the sweep of deleted accounts', close: () => erasures.stop() },
      { what: 'the metrics server', close: () => metricsServer.close() },
      { what: 'the sync queues', close: () => closeSyncQueues(queues) },
      {
        what: 'the Redis connection',
        close: () => {
          silence.stop();
          redis.disconnect();
        },
      },
      { what: 'the database', close: () => db.destroy() },
    ],
    { timeoutMs: config.shutdownTimeoutMs, logger },
  );
});
