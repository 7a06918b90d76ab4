import { withRequestedScopes } from './connections/capabilities.js';
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { loadWebConfig, readEnvironment } from './config.js';
import { KIND_SETTING_GROUPS } from './kinds.js';
import { accessTokensFromConfig } from './connections/access-token.js';
import { createTokenCipher } from './connections/token-crypto.js';
import { createDb } from './db/database.js';
import { assertStoreReadyWithin } from './db/store-at-start.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { listenOn } from './listen.js';
import { createLogger } from './logger.js';
import { serveMetrics } from './observability/metrics-server.js';
import { createPrometheusMetrics } from './observability/metrics.js';
import { createServiceApi } from './provider/api.js';
import { createOAuthClient } from './provider/oauth.js';
import { createProducerConnection, logUnlessRedisUnreachable, logReconnects, untilReady } from './redis/redis.js';
import { createRequestBudget } from './budget/request-budget.js';
import { closeSyncQueues, createSyncQueues } from './sync/queue.js';
import { createRedisSessionStore } from './web/session.js';

runEntryPoint(async () => {
  const config = loadWebConfig(readEnvironment(), KIND_SETTING_GROUPS);
  const logger = createLogger(config.logLevel, 'web');
  const db = createDb(config.database);
  const redisAtStart = { target: config.redis.target, timeoutS: config.startupTimeoutS };
  const redis = createProducerConnection(config.redis.target);
  logReconnects(redis, logger, 'producer');
  // Side by side, so that STARTUP_TIMEOUT_S bounds the whole wait.
  const [sessions] = await Promise.all([
    createRedisSessionStore({ ...redisAtStart, prefix: config.redis.prefix }, logger),
    untilReady(redis, redisAtStart),
    assertStoreReadyWithin(db, config.database, config.startupTimeoutS),
  ]);
  const syncQueues = createSyncQueues(redis, config.redis.prefix);
  const clock = () => new Date();
  const metrics = createPrometheusMetrics();
  const accessTokens = accessTokensFromConfig(config, { db, redis, clock, logger, metrics });
  const serviceApi = createServiceApi(config.athlete, { accessTokens, clock, metrics });

  const app = createApp({
    config,
    logger,
    metrics,
    db,
    sessionStore: sessions.store,
    oauth: createOAuthClient(withRequestedScopes(config.athlete), clock),
    cipher: createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys),
    redis,
    syncQueues,
    serviceApi,
    budget: createRequestBudget({ redis, prefix: config.redis.prefix, ...config.requestBudget }),
    clock,
  });
  const server = createServer(app);
  await listenOn(server, { host: config.host, port: config.port, hostSetting: 'HOST', portSetting: 'PORT' });
  const address = `http://${config.host}:${config.port}`;
  logger.info({ url: config.appBaseUrl }, `web listening on ${address}`);
  const metricsServer = await serveMetrics(config.metrics, metrics.registry, logger);

  for (const queue of Object.values(syncQueues)) queue.on('error', logUnlessRedisUnreachable(logger, 'sync queue: Redis error'));

  closeOnSignal(
    [
      { what: 'the HTTP server (requests in flight)', close: () => new Promise((resolve) => server.close(resolve)) },
      { what: 'the metrics server', close: () => metricsServer.close() },
      { what: 'the sync queues', close: () => closeSyncQueues(syncQueues) },
      { what: 'the Redis connection', close: () => redis.disconnect() },
      { what: 'the session store', close: () => sessions.close() },
      { what: 'the database', close: () => db.destroy() },
    ],
    { timeoutMs: config.shutdownTimeoutMs, logger },
  );
});
