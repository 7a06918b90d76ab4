import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { KIND_SETTING_GROUPS } from '../kinds.js';
import { StartupError } from '../errors.js';
import { createDb } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { untilReady } from '../redis/redis.js';
import { ioredisConnection, keyHolders, type RedisConnection } from '../redis/redis-target.js';
import { settingsFromEnvironment } from '../sandbox/environment.js';
import { startCompiledEntryPoint, startEntryPoint, stopChild, waitForHealthy } from './child-processes.js';
import { refuseTakenPorts, type PortUse } from './ports-in-use.js';

/**
 * The sandbox, the web app and workers, each in its own process, wired together with settings of a
 * local run (`npm run demo`, `npm run bench`, `npm run chaos`). The values below are for such runs
 * only and live nowhere else in the app; the sandbox's defaults match the demo's.
 */
export interface DevStackOptions {
  /** `demo`, `bench`, `chaos`: names the client registration and the run-only secrets. */
  name: string;
  webPort: number;
  sandboxPort: number;
  /** The settings that name Redis to the app: REDIS_URL, or those of a cluster or a Sentinel setup. */
  redis: Record<string, string>;
  /**
   * `fresh`: this SQLite database and Redis prefix are emptied at start and kept after stop, to look
   * into (the demo's: its sandbox remembers nothing between runs, so neither may the app).
   * `throwaway`: a fresh SQLite database in a temporary folder and a Redis prefix of the run's own,
   * both deleted at stop.
   * `prepared`: a database the run filled itself before (any DATABASE_URL), used as it stands and
   * kept; the Redis prefix is the run's own, its keys deleted at stop.
   */
  storage:
    | { kind: 'fresh'; databaseUrl: string; redisPrefix: string; onEmptied?: () => void }
    | { kind: 'throwaway' }
    | { kind: 'prepared'; databaseUrl: string; redisPrefix: string };
  /** `source` runs the TypeScript through tsx (no build); `compiled` runs dist/ as `npm start` does. */
  code: 'source' | 'compiled';
  /** Workers started with the web app; more with startWorker(). */
  workers: number;
  /** More settings of the app and the sandbox (SANDBOX_*), over the stack's own. */
  env?: NodeJS.ProcessEnv;
  /** Node's own options for the web process or the workers (e.g. --cpu-prof), before the entry point. */
  nodeOptions?: Partial<Record<AppProcess, string[]>>;
  /** Ports the run listens on besides the stack's (the demo's mail page), checked with them before anything starts. */
  otherPorts?: PortUse[];
}

export type AppProcess = 'web' | 'worker';

export interface DevStack {
  config: Config;
  /** Where process `n` serves its metrics (0 the web, 1 the first worker, …); undefined without a METRICS_PORT. */
  metricsUrl(processNumber: number): string | undefined;
  appUrl: string;
  sandboxUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  web: ChildProcess;
  sandbox: ChildProcess;
  /** The running workers, in the order started; a stopped one is removed. */
  workers: ChildProcess[];
  startWorker(): ChildProcess;
  /** Stops one worker with `signal` and waits for its exit. */
  stopWorker(worker: ChildProcess, signal: NodeJS.Signals): Promise<void>;
  /** Stops every process; a throwaway run's database and Redis keys go too. */
  stop(): Promise<void>;
}

function stackEnvironment(options: DevStackOptions, storage: Storage): NodeJS.ProcessEnv {
  const { name } = options;
  const appBaseUrl = `http://localhost:${options.webPort}`;
  const clientId = `athlete-sync-${name}`;
  const clientSecret = `${clientId}-secret`;
  return {
    ...process.env,
    APP_BASE_URL: appBaseUrl,
    PORT: String(options.webPort),
    DATABASE_URL: storage.databaseUrl,
    ...options.redis,
    REDIS_PREFIX: storage.redisPrefix,
    SESSION_SECRET: `${name}-only-session-secret-do-not-use-in-production`,
    TOKEN_ENCRYPTION_KEY: Buffer.from(`${name}-only-key-do-not-use-in-production`.slice(0, 32)).toString('base64'),
    ATHLETE_BASE_URL: `http://127.0.0.1:${options.sandboxPort}`,
    ATHLETE_CLIENT_ID: clientId,
    ATHLETE_CLIENT_SECRET: clientSecret,
    SANDBOX_PORT: String(options.sandboxPort),
    SANDBOX_MODE: 'test',
    SANDBOX_CLIENT_ID: clientId,
    SANDBOX_CLIENT_SECRET: clientSecret,
    SANDBOX_REDIRECT_URIS: `${appBaseUrl}/oauth/callback`,
    // The app sends only fields the interface document shows: a run refuses any other, visibly.
    SANDBOX_STRICT_FIELDS: 'true',
    ...options.env,
  };
}

interface Storage {
  databaseUrl: string;
  redisPrefix: string;
  /** A throwaway run's folder, deleted at stop. */
  temporaryDir?: string;
  /** Whether the run's Redis keys are deleted at stop. */
  keysDeletedAtStop: boolean;
}

async function prepareStorage({ name, storage }: DevStackOptions): Promise<Storage> {
  if (storage.kind === 'fresh') return { ...storage, keysDeletedAtStop: false };
  if (storage.kind === 'prepared') return { ...storage, keysDeletedAtStop: true };
  const temporaryDir = await mkdtemp(join(tmpdir(), `athlete-sync-${name}-`));
  return {
    databaseUrl: `sqlite:${join(temporaryDir, `${name}.db`)}`,
    redisPrefix: `athlete-sync-${name}-${Date.now()}`,
    temporaryDir,
    keysDeletedAtStop: true,
  };
}

/**
 * The ports the stack listens on: the web app's, the sandbox's and, with METRICS_PORT, each
 * process's metrics port.
 */
function stackPorts(options: DevStackOptions, config: Config, env: NodeJS.ProcessEnv): PortUse[] {
  const sandbox = settingsFromEnvironment(env);
  if (!sandbox.ok) throw new StartupError(sandbox.problem);
  const metrics =
    config.metrics.port === undefined || config.metrics.port === 0 ? [] : Array.from({ length: options.workers + 1 }, (_, n) => n);
  return [
    { port: config.port, host: config.host, setting: 'PORT', offset: 0, what: 'the web app' },
    { port: sandbox.settings.port, host: sandbox.settings.host, setting: 'SANDBOX_PORT', offset: 0, what: 'the sandbox' },
    ...metrics.map((n) => ({
      port: config.metrics.port! + n,
      host: config.metrics.host,
      setting: 'METRICS_PORT',
      offset: n,
      what: n === 0 ? "the web app's metrics" : `worker ${n}'s metrics`,
    })),
  ];
}

/**
 * Refuses taken ports before anything is emptied or started; then empties a fresh run's database
 * and Redis keys, migrates the database, starts the sandbox (always from source) and the web app,
 * and waits until both answer.
 */
export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  const storage = await prepareStorage(options);
  const env = stackEnvironment(options, storage);
  const config = loadConfig(env, KIND_SETTING_GROUPS);
  try {
    await refuseTakenPorts([...stackPorts(options, config, env), ...(options.otherPorts ?? [])], `npm run ${options.name}`);
  } catch (error) {
    if (storage.temporaryDir !== undefined) await rm(storage.temporaryDir, { recursive: true, force: true });
    throw error;
  }
  if (options.storage.kind === 'fresh') {
    await deleteSqliteDatabase(options.storage.databaseUrl);
    await deleteKeys(config);
    options.storage.onEmptied?.();
  }
  const db = createDb(config.database);
  await migrateToLatest(db);
  await db.destroy();

  const start = (label: string, entryPoint: 'server' | 'worker', kind: AppProcess, processEnv: NodeJS.ProcessEnv) => {
    const nodeOptions = options.nodeOptions?.[kind] ?? [];
    return options.code === 'source'
      ? startEntryPoint(label, `${entryPoint}.ts`, processEnv, nodeOptions)
      : startCompiledEntryPoint(label, entryPoint, processEnv, nodeOptions);
  };
  const sandbox = startEntryPoint('sandbox', 'sandbox/main.ts', env);
  const web = start('web', 'server', 'web', withMetricsPort(env, config, 0));
  const workers: ChildProcess[] = [];
  let started = 0;
  const startWorker = () => {
    started += 1;
    const worker = start(`worker ${started}`, 'worker', 'worker', withMetricsPort(env, config, started));
    workers.push(worker);
    return worker;
  };
  for (let index = 0; index < options.workers; index++) startWorker();
  const stop = async () => {
    await Promise.all([web, sandbox, ...workers].map((child) => stopChild(child)));
    if (storage.keysDeletedAtStop) await deleteKeys(config);
    if (storage.temporaryDir !== undefined) await rm(storage.temporaryDir, { recursive: true, force: true });
  };
  try {
    await waitForHealthy(sandbox, `${config.athlete.baseUrl}/healthz`);
    await waitForHealthy(web, `${config.appBaseUrl}/healthz`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    config,
    metricsUrl: (processNumber) => metricsUrlOf(config, processNumber),
    appUrl: config.appBaseUrl,
    sandboxUrl: config.athlete.baseUrl,
    clientId: config.athlete.clientId,
    clientSecret: config.athlete.clientSecret,
    redirectUri: `${config.appBaseUrl}/oauth/callback`,
    web,
    sandbox,
    workers,
    startWorker,
    async stopWorker(worker, signal) {
      workers.splice(workers.indexOf(worker), 1);
      await stopChild(worker, signal);
    },
    stop,
  };
}

/** The file of a `sqlite:` database; any other is refused, since the run empties it. */
function sqlitePathOf(databaseUrl: string): string {
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new StartupError('This run starts from an empty database, which it makes itself: give DATABASE_URL=sqlite:<path>.');
  }
  return databaseUrl.slice('sqlite:'.length);
}

/** The database file and SQLite's files beside it (write-ahead log, shared memory, journal). */
async function deleteSqliteDatabase(databaseUrl: string): Promise<void> {
  const path = sqlitePathOf(databaseUrl);
  await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${path}${suffix}`, { force: true })));
}

/**
 * Each process of a machine needs a metrics port of its own: with METRICS_PORT set, the web
 * process takes it, and worker n the port n above it (0, any free port, stays 0 for each).
 */
function withMetricsPort(env: NodeJS.ProcessEnv, config: Config, processNumber: number): NodeJS.ProcessEnv {
  if (config.metrics.port === undefined || config.metrics.port === 0) return env;
  return { ...env, METRICS_PORT: String(config.metrics.port + processNumber) };
}

function metricsUrlOf(config: Config, processNumber: number): string | undefined {
  if (config.metrics.port === undefined || config.metrics.port === 0) return undefined;
  const host = config.metrics.host.includes(':') ? `[${config.metrics.host}]` : config.metrics.host;
  return `http://${host}:${config.metrics.port + processNumber}/metrics`;
}

/**
 * Every key of the prefix gone in one step, as a failover to an empty replica or a FLUSHALL loses
 * them: deleted a few at a time while the app runs, the queue would be half there for a moment (a
 * job's id in a list whose job is gone), a state no real loss leaves. One script, so atomic; KEYS
 * blocks the server while it looks, which a bench's or a test's Redis can afford.
 */
export async function loseEveryKey(redis: RedisConnection, prefix: string): Promise<void> {
  await redis.eval(
    `local keys = redis.call('keys', ARGV[1])
     for first = 1, #keys, 1000 do redis.call('unlink', unpack(keys, first, math.min(first + 999, #keys))) end
     return #keys`,
    0,
    `${prefix}:*`,
  );
}

/** This run's keys only (under its REDIS_PREFIX), from each server that holds keys: a Redis found on the machine may hold others'. */
export async function deleteKeys({ redis: { target, prefix }, startupTimeoutS }: Config): Promise<void> {
  const redis = await untilReady(ioredisConnection(target, { maxRetriesPerRequest: 1 }), { target, timeoutS: startupTimeoutS });
  try {
    for (const server of keyHolders(redis)) {
      for await (const keys of server.scanStream({ match: `${prefix}:*`, count: 500 })) {
        if ((keys as string[]).length > 0) await server.del(...(keys as string[]));
      }
    }
  } finally {
    redis.disconnect();
  }
}
