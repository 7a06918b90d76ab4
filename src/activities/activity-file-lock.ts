import { withRedisLock } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';

/**
 * Runs `work` while no other process works on the same file key (`<userId>/<sha256>`): an upload
 * between storing the bytes and committing its row, a delete between removing the row and the bytes.
 */
export type ActivityFileLock = <T>(key: string, work: () => Promise<T>) => Promise<T>;

/**
 * Far above a put of the largest file and a transaction; only a holder that died keeps it this
 * long. A request waits for the lock as long as for a busy database, then answers 503.
 */
const LOCK = { ttlMs: 60_000, waitMs: 10_000 };

/** The lock in Redis, shared by every web process. */
export function createActivityFileLock(redis: RedisConnection, redisPrefix: string): ActivityFileLock {
  return (key, work) => withRedisLock(redis, `${redisPrefix}:activity-file:${key}`, LOCK, work);
}
