import { once } from 'node:events';
import { createApp } from './app.js';
import { loadConfig, readEnvironment } from './config.js';
import { accessTokensFromConfig } from './connections/access-token.js';
import { createTokenCipher } from './connections/token-crypto.js';
import { createDb } from './db/database.js';
import { assertMigrated } from './db/migrate.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';
import { serveMetrics } from './observability/metrics-server.js';
import { createPrometheusMetrics } from './observability/metrics.js';
import { createServiceApi } from './provider/api.js';
import { createOAuthClient } from './provider/oauth.js';
import { createProducerConnection, untilReady } from './queue/redis.js';
import { createSyncQueue } from './sync/queue.js';
import { createRedisSessionStore } from './web/session.js';

runEntryPoint(async () => {
  const config = loadConfig(readEnvironment());
  const logger = createLogger(config.logLevel, 'web');
  const db = createDb(config.database);
  await assertMigrated(db);
  const sessions = await createRedisSessionStore(config.redis.url, config.redis.prefix);
  const redis = await untilReady(createProducerConnection(config.redis.url));
  const syncQueue = createSyncQueue({ connection: redis, prefix: config.redis.prefix, attempts: config.sync.attempts });
  const clock = () => new Date();
  const metrics = createPrometheusMetrics();
  const accessTokens = accessTokensFromConfig(config, { db, redis, clock, logger, metrics });
  const serviceApi = createServiceApi({ baseUrl: config.athlete.baseUrl, timeoutS: config.athlete.timeoutS, accessTokens, clock, metrics });

  const app = createApp({
    config,
    logger,
    metrics,
    db,
    sessionStore: sessions.store,
    oauth: createOAuthClient(config.athlete, clock),
    cipher: createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys),
    redis,
    syncQueue,
    serviceApi,
    clock,
  });
  const server = app.listen(config.port);
  await once(server, 'listening');
  logger.info({ url: config.appBaseUrl }, 'web listening');
  const metricsServer = await serveMetrics(config.metrics, metrics.registry, logger);

  syncQueue.on('error', (error) => logger.warn({ err: error }, 'sync queue: Redis error'));

  closeOnSignal(
    [
      { what: 'the HTTP server (requests in flight)', close: () => new Promise((resolve) => server.close(resolve)) },
      { what: 'the metrics server', close: () => metricsServer.close() },
      { what: 'the sync queue', close: () => syncQueue.close() },
      { what: 'the Redis connection', close: () => redis.disconnect() },
      { what: 'the session store', close: () => sessions.close() },
      { what: 'the database', close: () => db.destroy() },
    ],
    { timeoutMs: config.shutdownTimeoutMs, logger },
  );
});
