import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisConnection } from './redis-target.js';

/**
 * A lock shared by every process on one Redis: the single-instance pattern from the Redis
 * documentation (SET NX PX with an owner value; released only by its owner). The timeout frees
 * the lock if its holder dies; keep `ttlMs` well above the work it guards.
 */

/** Deletes the key only while it still holds our owner value (atomic in Redis). */
export const RELEASE_IF_OWNER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

export interface LockOptions {
  ttlMs: number;
  /** How long to wait for a lock another process holds before giving up. */
  waitMs: number;
}

export async function withRedisLock<T>(redis: RedisConnection, key: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  await acquire(redis, key, owner, options);
  try {
    return await work();
  } finally {
    await redis.eval(RELEASE_IF_OWNER, 1, key, owner);
  }
}

async function acquire(redis: RedisConnection, key: string, owner: string, { ttlMs, waitMs }: LockOptions): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    if ((await redis.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK') return;
    if (Date.now() >= deadline) throw new LockTimeoutError(`lock ${key} still held after ${waitMs} ms`);
    await sleep(pause / 2 + Math.random() * pause);
  }
}
