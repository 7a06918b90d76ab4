import { findRedis } from '../find-redis.js';
import { freePort } from '../free-port.js';
import { startDevStack, type AppProcess, type DevStack, type DevStackOptions } from '../stack.js';

/** Short, so that the drain and the latency phase do not wait long; the latency is measured beyond it. */
export const BENCH_SYNC_QUIET_MS = 1000;

export type BenchStack = DevStack;

/**
 * The settings of a run that loads the app on purpose (`npm run bench`, `npm run chaos`): the
 * production build, a short quiet period, and the limits meant for real users lifted.
 */
export const LOAD_RUN_ENV = {
  NODE_ENV: 'production',
  SYNC_QUIET_MS: String(BENCH_SYNC_QUIET_MS),
  // The partner's own throttle (10 requests/s by default) would be all the drain measures; lifted,
  // the drain shows what the worker itself reaches.
  ATHLETE_RATE_LIMIT_PER_S: '100000',
  // Every user of the run signs up and signs in from this one address.
  SIGNUPS_PER_ADDRESS_PER_HOUR: '100000',
  SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: '100000',
  SESSIONS_PER_ADDRESS_PER_HOUR: '100000',
};

/** Which of the app's processes runs under --cpu-prof, writing its profiles into `dir` as each exits. */
export interface BenchProfiling {
  process: AppProcess;
  dir: string;
}

export interface BenchStackOptions {
  profiling?: BenchProfiling;
  /** Settings over the load run's own (a rate limit, say). */
  env?: NodeJS.ProcessEnv;
  /** The store: a throwaway SQLite database unless the run prepared one. */
  storage?: DevStackOptions['storage'];
  /** Workers started with the web app (none: the run starts them when its phase comes). */
  workers?: number;
}

/**
 * The sandbox (from source, as the demo runs it), the production build of the web app and of the
 * workers, a fresh SQLite database (or the store the run prepared) and a Redis key prefix of this run's own.
 */
export async function startBenchStack({
  profiling,
  env = {},
  storage = { kind: 'throwaway' },
  workers = 0,
}: BenchStackOptions = {}): Promise<BenchStack> {
  const redis = await findRedis();
  const stack = await startDevStack({
    name: 'bench',
    webPort: await freePort(),
    sandboxPort: await freePort(),
    redis: { REDIS_URL: redis.url },
    storage,
    code: 'compiled',
    workers,
    // Node refuses --cpu-prof in NODE_OPTIONS: it goes on the command line.
    nodeOptions: profiling ? { [profiling.process]: ['--cpu-prof', `--cpu-prof-dir=${profiling.dir}`] } : {},
    env: {
      ...LOAD_RUN_ENV,
      LOG_LEVEL: 'warn',
      SANDBOX_LOG_LEVEL: 'warn',
      SANDBOX_AUTO_APPROVE: 'bench',
      ...env,
    },
  }).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  return {
    ...stack,
    async stop() {
      await stack.stop();
      await redis.stop();
    },
  };
}
