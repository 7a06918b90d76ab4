import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { RedisConnection } from '../redis/redis-target.js';

/**
 * How many of one person's changes of now may go ahead of everyone's history in a minute
 * (docs/architecture.md, "Who waits"). A person editing by hand makes a few a minute; a script
 * replaying history through the single-item API makes hundreds, and past the allowance its changes
 * wait as its own history, so that its flood costs only its own turns.
 */
export interface FreshAllowance {
  /** How many more of the person's changes may be sent in the fresh lane this minute. */
  left(userId: number): Promise<number>;
  /** Counts changes of the person sent in the fresh lane. */
  spend(userId: number, changes: number): Promise<void>;
}

/**
 * Counted in Redis (keys under `<prefix>:fresh-changes:`), so that every worker process shares each
 * person's count; a count lives no longer than its minute. A Redis that lost it starts the minute
 * again: the outbox still holds every change, and says which lane each waits in.
 */
export function createFreshAllowance({
  redis,
  redisPrefix,
  perPersonPerMinute,
}: {
  redis: RedisConnection;
  redisPrefix: string;
  /** SYNC_FRESH_PER_PERSON_PER_MINUTE. */
  perPersonPerMinute: number;
}): FreshAllowance {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${redisPrefix}:fresh-changes`,
    points: perPersonPerMinute,
    duration: 60,
  });
  return {
    async left(userId) {
      const counted = await limiter.get(String(userId));
      return Math.max(perPersonPerMinute - (counted?.consumedPoints ?? 0), 0);
    },
    async spend(userId, changes) {
      if (changes > 0) await limiter.penalty(String(userId), changes);
    },
  };
}
