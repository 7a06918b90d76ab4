import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from '../errors.js';
import { redisAnswers } from '../redis/redis.js';
import { stopChild } from './child-processes.js';
import { freePort } from './free-port.js';

/**
 * How the demo and the tests find a Redis, in order: REDIS_URL if set; a server on the
 * standard local port; a private `redis-server` started on a free port (no persistence,
 * stopped with us); otherwise a one-line error that says how to get one.
 */

export interface FoundRedis {
  url: string;
  /** Which one it is, in words: "REDIS_URL", "found on 127.0.0.1:6379", "a private redis-server …". */
  source: string;
  /** Stops the private server when we started one; a no-op for a server we merely found. */
  stop(): Promise<void>;
}

export class RedisNotFoundError extends StartupError {
  override name = 'RedisNotFoundError';
}

const INSTALL_HINT =
  'No Redis found: set REDIS_URL, start one on 127.0.0.1:6379, or install redis-server ' +
  '(Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis).';

export interface FindRedisOptions {
  /** Where REDIS_URL and PATH (to find `redis-server`) are read from. */
  env?: NodeJS.ProcessEnv;
  localUrl?: string;
}

export async function findRedis({ env = process.env, localUrl = 'redis://127.0.0.1:6379' }: FindRedisOptions = {}): Promise<FoundRedis> {
  const configured = env.REDIS_URL;
  if (configured) return { url: configured, source: 'REDIS_URL', stop: async () => {} };
  if (await redisAnswers(localUrl)) return { url: localUrl, source: `found answering on ${new URL(localUrl).host}`, stop: async () => {} };
  return startPrivateRedis(env);
}

/** The settings of the app that name a Redis Cluster or a Sentinel setup instead of REDIS_URL. */
const SHAPE_SETTINGS = ['REDIS_CLUSTER_NODES', 'REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER'] as const;

/** Redis for a run of the app's processes (`npm run demo`): the settings that name it to them. */
export interface RunRedis {
  settings: Record<string, string>;
  /** The settings as printed: the URL, or `NAME=value` of each. */
  shown: string;
  /** How it was found, in words. */
  source: string;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster or a Sentinel setup when the environment names one, taken as it is (a run
 * cannot start one); otherwise one server, found as findRedis finds it.
 */
export async function findRedisForRun(env: NodeJS.ProcessEnv = process.env): Promise<RunRedis> {
  const named = SHAPE_SETTINGS.flatMap((name) => (env[name] ? [[name, env[name]] as const] : []));
  if (named.length > 0) {
    return {
      settings: Object.fromEntries(named),
      shown: named.map(([name, value]) => `${name}=${value}`).join(' '),
      source: 'the environment',
      stop: async () => {},
    };
  }
  const found = await findRedis({ env });
  return { settings: { REDIS_URL: found.url }, shown: found.url, source: found.source, stop: () => found.stop() };
}

/** A `redis-server` of our own: no persistence, so a restart starts it empty. */
export interface PrivateRedis extends FoundRedis {
  /** Kills it at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port: after a stop or a kill, or stopping it first. */
  restart(): Promise<void>;
  /**
   * Stops it answering without closing a connection (SIGSTOP), as a network partition or a stalled
   * host would look to a client; `thaw` lets it go on (SIGCONT) with what it held.
   */
  freeze(): void;
  thaw(): void;
}

/** Starts a private `redis-server` on a free port (`npm run chaos` kills it, so it never uses a shared one). */
export async function startPrivateRedis(env: NodeJS.ProcessEnv = process.env): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const launch = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
      env,
    });
    await waitUntilAnswering(started, url);
    return started;
  };
  let server = await launch();
  const stopOnExit = () => server.kill();
  process.once('exit', stopOnExit);
  return {
    url,
    source: 'a private redis-server started for this run, without persistence',
    stop: async () => {
      process.off('exit', stopOnExit);
      await stopChild(thawed(server));
    },
    kill: () => stopChild(server, 'SIGKILL'),
    freeze: () => void server.kill('SIGSTOP'),
    thaw: () => void server.kill('SIGCONT'),
    restart: async () => {
      await stopChild(thawed(server));
      server = await launch();
      process.off('exit', stopOnExit).once('exit', stopOnExit);
    },
  };
}

/** A frozen server acts on SIGTERM only once it runs again. */
function thawed(server: ChildProcess): ChildProcess {
  server.kill('SIGCONT');
  return server;
}

async function waitUntilAnswering(server: ChildProcess, url: string): Promise<void> {
  // `once` rejects when the 'error' event comes first, which is how a missing binary shows.
  await once(server, 'spawn').catch(() => {
    throw new RedisNotFoundError(INSTALL_HINT);
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (server.exitCode !== null) throw new Error(`redis-server exited with code ${server.exitCode}`);
    if (await redisAnswers(url, 200)) return;
    await sleep(50);
  }
  server.kill();
  throw new Error(`redis-server did not answer at ${url} within 5 seconds`);
}
