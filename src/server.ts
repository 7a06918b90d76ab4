import { once } from 'node:events';
import { createApp } from './app.js';
import { loadConfig, readEnvironment } from './config.js';
import { createDb } from './db/database.js';
import { assertMigrated } from './db/migrate.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';

runEntryPoint(async () => {
  const config = loadConfig(readEnvironment());
  const logger = createLogger(config.logLevel, 'web');
  const db = createDb(config.database);
  await assertMigrated(db);

  const server = createApp({ config, logger }).listen(config.port);
  await once(server, 'listening');
  logger.info({ url: config.appBaseUrl }, 'web listening');

  closeOnSignal(async () => {
    server.close();
    await db.destroy();
  });
});
