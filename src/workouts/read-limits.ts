import { RateLimiterRedis } from 'rate-limiter-flexible';
import { takePoint, type RetryAfter } from '../budget/rate-limit.js';
import type { RedisConnection } from '../redis/redis-target.js';

export interface WorkoutReadSettings {
  /** WORKOUTS_CACHE_S in ms: a list the person fetched this recently is answered without asking the service. */
  cacheMs: number;
  /** WORKOUTS_READS_PER_PERSON_PER_MINUTE: the lists of one person that may ask the service in a minute. */
  perPersonPerMinute: number;
}

/** How often one person's workouts list asks the service, whichever web process they reach. */
export interface WorkoutReadLimits {
  cacheMs: number;
  /** Counts a list that is about to ask the service; past the person's lists of the minute, how long until the next may. */
  takeRead(userId: number): Promise<RetryAfter | undefined>;
}

/**
 * Counted in Redis (keys under `<prefix>:workout-reads:`), so that every web process shares each
 * person's count; a count lives no longer than its minute.
 */
export function createWorkoutReadLimits({
  redis,
  redisPrefix,
  settings,
}: {
  redis: RedisConnection;
  redisPrefix: string;
  settings: WorkoutReadSettings;
}): WorkoutReadLimits {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `${redisPrefix}:workout-reads`,
    points: settings.perPersonPerMinute,
    duration: 60,
  });
  return {
    cacheMs: settings.cacheMs,
    takeRead: (userId) => takePoint(limiter, String(userId)),
  };
}
