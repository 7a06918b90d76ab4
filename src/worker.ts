import { loadConfig, readEnvironment } from './config.js';
import { createDb } from './db/database.js';
import { assertMigrated } from './db/migrate.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';
import { createRedisConnection } from './queue/redis.js';

// The sync jobs arrive with the nutrition issue; until then the worker checks its
// database and Redis, reports ready, and waits to be stopped.
runEntryPoint(async () => {
  const config = loadConfig(readEnvironment());
  const logger = createLogger(config.logLevel, 'worker');
  const db = createDb(config.database);
  await assertMigrated(db);
  const redis = createRedisConnection(config.redis.url);
  await redis.ping();
  logger.info({ prefix: config.redis.prefix }, 'worker ready');

  closeOnSignal(async () => {
    redis.disconnect();
    await db.destroy();
  });
});
