import { Redis } from 'ioredis';

/**
 * A connection for BullMQ workers and the app's locks. `maxRetriesPerRequest: null` is what
 * BullMQ workers require: a blocking command must wait through a reconnect instead of failing.
 * A database index in the URL (redis://host:6379/2) is honoured by ioredis.
 */
export function createRedisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/**
 * A connection for adding jobs from a web request: while Redis is unreachable, commands fail at
 * once instead of waiting in ioredis's offline queue, so a request never hangs on a hint.
 */
export function createProducerConnection(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => {
    // ioredis reconnects by itself; each failed command is reported where it was made.
  });
  return redis;
}

/**
 * The connection once it is connected. Without an offline queue, commands sent before then fail at
 * once, so a process that served requests straight after start-up would answer its first ones 503.
 * Waits through failed attempts, as the session store's connect does, while Redis is not yet up.
 */
export function untilReady(redis: Redis): Promise<Redis> {
  if (redis.status === 'ready') return Promise.resolve(redis);
  return new Promise((resolve) => redis.once('ready', () => resolve(redis)));
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
