import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { StartupError } from '../errors.js';
import { beforeDeadline, TIMED_OUT } from '../deadline.js';
import { UnreachableAtStartError, withoutPassword } from '../reach-at-start.js';
import { isRedisUnavailable } from './redis-unavailable.js';
import { describeRedis, ioredisConnection, type ConnectionEvents, type RedisConnection, type RedisTarget } from './redis-target.js';

/**
 * A connection for BullMQ workers and the app's locks. `maxRetriesPerRequest: null` is what
 * BullMQ workers require: a blocking command must wait through a reconnect instead of failing.
 * A database index in the URL (redis://host:6379/2) is honoured by ioredis.
 */
export function createRedisConnection(target: RedisTarget): RedisConnection {
  return ioredisConnection(target, { maxRetriesPerRequest: null });
}

/**
 * How long a web request waits for a reply from Redis. Redis answers the app's commands within
 * milliseconds; one silent this long has stopped (a network partition, a stalled host) without
 * closing the connection, and the request is answered 503 rather than held until it comes back.
 */
export const REDIS_REPLY_TIMEOUT_MS = 2000;

/**
 * A connection for a web request's commands (sessions aside): while Redis is unreachable, commands
 * fail at once instead of waiting in ioredis's offline queue, so a request never hangs. A command
 * unanswered for REDIS_REPLY_TIMEOUT_MS fails (`commandTimeout`) and the silent connection is dropped
 * and made again (`socketTimeout`), so the next ones fail at once too; one that failed is not sent
 * again after a reconnect, since its request has been answered already.
 */
export function createProducerConnection(target: RedisTarget): RedisConnection {
  const redis = ioredisConnection(target, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_REPLY_TIMEOUT_MS,
    socketTimeout: REDIS_REPLY_TIMEOUT_MS,
    autoResendUnfulfilledCommands: false,
  });
  redis.on('error', () => {
    // ioredis reconnects by itself; each failed command is reported where it was made.
  });
  return redis;
}

/** Where Redis is, and how long a process may wait for it at start (STARTUP_TIMEOUT_S). */
export interface RedisAtStart {
  target: RedisTarget;
  timeoutS: number;
}

/**
 * The connection once it is connected. Without an offline queue, commands sent before then fail at
 * once, so a process that served requests straight after start-up would answer its first ones 503.
 * Waits quietly through failed attempts while Redis is not yet up, for at most `timeoutS`; then
 * the start ends with one line naming Redis, where it is and why. So does a REDIS_URL that names a
 * node of a Redis Cluster.
 */
export async function untilReady<Connection extends RedisConnection>(redis: Connection, atStart: RedisAtStart): Promise<Connection> {
  if (redis.status !== 'ready') {
    const ready = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    await untilConnected(redis, ready, atStart, () => redis.disconnect());
  }
  if (atStart.target.shape === 'server' && (await isClusterNode(redis))) {
    redis.disconnect();
    throw new ClusterNodeAsServerError(atStart.target.url);
  }
  return redis;
}

/**
 * A plain client on a node of a Redis Cluster works only for the keys of that node's slots: it is
 * answered MOVED for the others, and for all of them after a resharding or a failover.
 */
export class ClusterNodeAsServerError extends StartupError {
  override name = 'ClusterNodeAsServerError';

  constructor(url: string) {
    super(
      `REDIS_URL names a node of a Redis Cluster (${withoutPassword(url)}): set REDIS_CLUSTER_NODES to it instead of REDIS_URL, with REDIS_PREFIX in braces`,
    );
  }
}

/** Whether the server says it is a node of a cluster; a server that refuses INFO (some managed ones rename it) is taken at its word as one server. */
async function isClusterNode(redis: RedisConnection): Promise<boolean> {
  const info = await redis.info('cluster').catch(() => '');
  return /^cluster_enabled:1\b/m.test(info);
}

/**
 * `connecting` (a client that retries by itself) within `timeoutS`; else `giveUp` ends its retrying
 * and the start ends with one line naming Redis, where it is and the client's last error.
 */
export async function untilConnected<T>(
  client: ConnectionEvents,
  connecting: Promise<T>,
  { target, timeoutS }: RedisAtStart,
  giveUp: () => void,
): Promise<T> {
  let lastError: unknown = 'no answer';
  client.on('error', (error) => {
    lastError = error;
  });
  const outcome = await beforeDeadline(connecting, Date.now() + timeoutS * 1000);
  if (outcome !== TIMED_OUT) return outcome;
  giveUp();
  throw new UnreachableAtStartError({ ...describeRedis(target), timeoutS }, lastError);
}

/**
 * Once connected, a lost connection is one warn line per reconnect attempt (with the last error's
 * message) and one info line when it is back, instead of an error for every command. Both clients
 * reconnect by themselves; what failed meanwhile is reported where it was asked for.
 */
export function logReconnects(client: ConnectionEvents, logger: Logger, name: string): void {
  let connected = false;
  let lastError = 'connection lost';
  client.on('error', (error) => {
    lastError = error.message;
  });
  client.on('reconnecting', () => {
    if (connected) logger.warn({ redisClient: name, reason: lastError }, `Redis unreachable (${lastError}): reconnecting`);
  });
  client.on('ready', () => {
    if (connected) logger.info({ redisClient: name }, 'Redis reachable again');
    connected = true;
  });
}

/** True when a Redis server answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * A BullMQ queue's or worker's 'error' listener. BullMQ reports an unreachable Redis once per
 * connection and command; logReconnects has said it once per attempt, so only other errors are logged.
 */
export function logUnlessRedisUnreachable(logger: Logger, message: string): (error: Error) => void {
  return (error) => {
    if (!isRedisUnavailable(error)) logger.error({ err: error }, message);
  };
}
