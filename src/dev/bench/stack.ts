import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';
import { Redis } from 'ioredis';
import { loadConfig } from '../../config.js';
import { createDb } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { startCompiledEntryPoint, startEntryPoint, stopChild, waitForHealthy } from '../child-processes.js';
import { findRedis } from '../find-redis.js';

const BENCH_CLIENT_ID = 'athlete-sync-bench';
const BENCH_CLIENT_SECRET = 'athlete-sync-bench-secret';
const BENCH_SESSION_SECRET = 'bench-only-session-secret-do-not-use-in-production';
const BENCH_TOKEN_ENCRYPTION_KEY = Buffer.from('bench-only-key-do-not-use-in-pro').toString('base64');

/** Short, so that the drain and the latency phase do not wait long; the latency is measured beyond it. */
export const BENCH_SYNC_QUIET_MS = 1000;

/**
 * The sandbox (from source, as the demo runs it), the production build of the web app and of the
 * workers, a fresh SQLite database and a Redis key prefix of this run's own.
 */
export interface BenchStack {
  appUrl: string;
  sandboxUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  web: ChildProcess;
  sandbox: ChildProcess;
  workers: ChildProcess[];
  startWorkers(count: number): void;
  stop(): Promise<void>;
}

async function benchEnvironment(redisUrl: string, dataDir: string, runId: string): Promise<NodeJS.ProcessEnv> {
  const webPort = await getPort({ host: '127.0.0.1' });
  const sandboxPort = await getPort({ host: '127.0.0.1' });
  const appBaseUrl = `http://localhost:${webPort}`;
  return {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    APP_BASE_URL: appBaseUrl,
    PORT: String(webPort),
    DATABASE_URL: `sqlite:${join(dataDir, 'bench.db')}`,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `athlete-sync-bench-${runId}`,
    SESSION_SECRET: BENCH_SESSION_SECRET,
    TOKEN_ENCRYPTION_KEY: BENCH_TOKEN_ENCRYPTION_KEY,
    ATHLETE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    ATHLETE_CLIENT_ID: BENCH_CLIENT_ID,
    ATHLETE_CLIENT_SECRET: BENCH_CLIENT_SECRET,
    SYNC_QUIET_MS: String(BENCH_SYNC_QUIET_MS),
    // The partner's own throttle (10 jobs/s by default) would be all the drain measures; lifted, the
    // drain shows what the worker itself reaches.
    ATHLETE_RATE_LIMIT_PER_S: '100000',
    // Every bench user signs up and signs in from this one address.
    SIGNUPS_PER_ADDRESS_PER_HOUR: '100000',
    SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: '100000',
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_MODE: 'test',
    SANDBOX_LOG_LEVEL: 'warn',
    SANDBOX_CLIENT_ID: BENCH_CLIENT_ID,
    SANDBOX_CLIENT_SECRET: BENCH_CLIENT_SECRET,
    SANDBOX_REDIRECT_URIS: `${appBaseUrl}/oauth/callback`,
    SANDBOX_AUTO_APPROVE: 'bench',
  };
}

export async function startBenchStack(runId: string): Promise<BenchStack> {
  const redis = await findRedis();
  const dataDir = await mkdtemp(join(tmpdir(), 'athlete-sync-bench-'));
  const env = await benchEnvironment(redis.url, dataDir, runId);
  const config = loadConfig(env);
  const db = createDb(config.database);
  await migrateToLatest(db);
  await db.destroy();

  const sandbox = startEntryPoint('sandbox', 'sandbox/main.ts', env);
  const web = startCompiledEntryPoint('web', 'server.js', env);
  const workers: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all([web, sandbox, ...workers].map(stopChild));
    await deleteKeys(redis.url, config.redis.prefix);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealthy(sandbox, `${config.athlete.baseUrl}/healthz`);
    await waitForHealthy(web, `${config.appBaseUrl}/healthz`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    appUrl: config.appBaseUrl,
    sandboxUrl: config.athlete.baseUrl,
    clientId: BENCH_CLIENT_ID,
    clientSecret: BENCH_CLIENT_SECRET,
    redirectUri: `${config.appBaseUrl}/oauth/callback`,
    web,
    sandbox,
    workers,
    startWorkers(count) {
      for (let index = 0; index < count; index++) workers.push(startCompiledEntryPoint(`worker ${index + 1}`, 'worker.js', env));
    },
    stop,
  };
}

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}
