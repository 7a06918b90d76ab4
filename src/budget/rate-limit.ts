import { RateLimiterRes, type RateLimiterRedis } from 'rate-limiter-flexible';

/** Seconds until another attempt may be made. */
export type RetryAfter = { retryAfterS: number };

/** Takes one point of `key`; when none is left, says how long until the window that holds them ends. */
export async function takePoint(limiter: RateLimiterRedis, key: string): Promise<RetryAfter | undefined> {
  try {
    await limiter.consume(key);
    return undefined;
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return { retryAfterS: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
  }
}
