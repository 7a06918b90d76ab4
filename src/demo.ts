import type { ChildProcess } from 'node:child_process';
import { loadConfig } from './config.js';
import { createDb } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { readableLog, startEntryPoint, stopChild, waitForHealthy } from './dev/child-processes.js';
import { findRedis } from './dev/find-redis.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';

/**
 * `npm run demo`: the sandbox, the web app and a worker, each in its own process, wired together
 * with demo settings. These values are for a local demo only and live nowhere else in the app;
 * the sandbox's defaults match them.
 */
const DEMO_CLIENT_ID = 'athlete-sync-demo';
const DEMO_CLIENT_SECRET = 'athlete-sync-demo-secret';
const DEMO_SESSION_SECRET = 'demo-only-session-secret-do-not-use-in-production';
const DEMO_TOKEN_ENCRYPTION_KEY = Buffer.from('demo-only-key-do-not-use-in-prod').toString('base64');

function demoEnvironment(redisUrl: string): NodeJS.ProcessEnv {
  const webPort = process.env.PORT ?? '3000';
  const sandboxPort = process.env.SANDBOX_PORT ?? '4100';
  const appBaseUrl = `http://localhost:${webPort}`;
  return {
    ...process.env,
    APP_BASE_URL: appBaseUrl,
    PORT: webPort,
    DATABASE_URL: process.env.DATABASE_URL ?? 'sqlite:./data/demo.db',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: process.env.REDIS_PREFIX ?? 'athlete-sync-demo',
    SESSION_SECRET: DEMO_SESSION_SECRET,
    TOKEN_ENCRYPTION_KEY: DEMO_TOKEN_ENCRYPTION_KEY,
    ATHLETE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    ATHLETE_CLIENT_ID: DEMO_CLIENT_ID,
    ATHLETE_CLIENT_SECRET: DEMO_CLIENT_SECRET,
    SANDBOX_PORT: sandboxPort,
    SANDBOX_MODE: 'test',
    SANDBOX_CLIENT_ID: DEMO_CLIENT_ID,
    SANDBOX_CLIENT_SECRET: DEMO_CLIENT_SECRET,
    SANDBOX_REDIRECT_URIS: `${appBaseUrl}/oauth/callback`,
  };
}

runEntryPoint(async () => {
  const redis = await findRedis();
  const env = demoEnvironment(redis.url);
  const config = loadConfig(env);

  const db = createDb(config.database);
  await migrateToLatest(db);
  await db.destroy();

  const sandbox = startEntryPoint('sandbox', 'sandbox/main.ts', env);
  const web = startEntryPoint('web', 'server.ts', env);
  const worker = startEntryPoint('worker', 'worker.ts', env);
  const children: ChildProcess[] = [sandbox, web, worker];

  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await Promise.all(children.map(stopChild));
    await redis.stop();
  };
  closeOnSignal([{ what: 'the sandbox, web and worker processes', close: stopAll }], {
    timeoutMs: config.shutdownTimeoutMs,
    logger: createLogger(config.logLevel, 'demo', { write: (line: string) => void process.stdout.write(readableLog(line)) }),
  });
  for (const child of children) {
    child.once('exit', (code) => {
      if (stopping) return;
      console.error(`A demo process exited (code ${code}); stopping the demo.`);
      void stopAll().finally(() => process.exit(1));
    });
  }

  try {
    await waitForHealthy(sandbox, `${config.athlete.baseUrl}/healthz`);
    await waitForHealthy(web, `${config.appBaseUrl}/healthz`);
  } catch (error) {
    await stopAll();
    throw error;
  }
  console.log(`\nathlete-sync demo is running. Open ${config.appBaseUrl}`);
  console.log(`The sandbox's state page: ${config.athlete.baseUrl}/_sandbox (Ctrl+C stops everything)\n`);
});
