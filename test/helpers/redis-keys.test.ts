import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/queue/redis.js';
import { redisServer, type RedisConnection } from '../../src/queue/redis-target.js';
import { deleteKeysUnder, failIfKeysLeftUnder, keysLeftUnder, testRedisPrefix } from './redis-keys.js';

let redis: RedisConnection;
beforeAll(() => {
  redis = createRedisConnection(redisServer(inject('redisUrl')));
});
afterAll(() => redis.disconnect());

describe('the check at the end of the run', () => {
  it('passes when no key is left under the prefix', async () => {
    await expect(failIfKeysLeftUnder(redis, testRedisPrefix())).resolves.toBeUndefined();
  });

  it('fails naming the count and a few of the keys left, plain or hash-tagged, then deletes them', async () => {
    const prefix = testRedisPrefix();
    await redis.set(`${prefix}-a:session:1`, '1');
    await redis.set(`{${prefix}-b}:sync:meta`, '1');

    const check = failIfKeysLeftUnder(redis, prefix);

    await expect(check).rejects.toThrow(`The tests left 2 Redis key(s) under ${prefix}`);
    await expect(check).rejects.toThrow(`${prefix}-a:session:1`);
    expect(await keysLeftUnder(redis, prefix)).toEqual({ count: 0, sample: [] });
  });

  it('names five keys at most however many are left', async () => {
    const prefix = testRedisPrefix();
    await Promise.all(Array.from({ length: 12 }, (_, index) => redis.set(`${prefix}:attempts:${index}`, '1')));

    const left = await keysLeftUnder(redis, prefix);
    await deleteKeysUnder(redis, prefix);

    expect(left.count).toBe(12);
    expect(left.sample).toHaveLength(5);
    expect(await keysLeftUnder(redis, prefix)).toEqual({ count: 0, sample: [] });
  });
});
