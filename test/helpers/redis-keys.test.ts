import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import { redisServer, type RedisConnection } from '../../src/redis/redis-target.js';
import { deleteKeysUnder, failIfKeysLeftUnder, keysLeftUnder, testFilesKey, testRedisPrefix } from './redis-keys.js';

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
    expect(await keysLeftUnder(redis, prefix)).toMatchObject({ count: 0, sample: [] });
  });

  it('names the test files whose prefixes the keys left are under, as each file wrote it down at its end', async () => {
    const runPrefix = testRedisPrefix();
    await redis.hset(testFilesKey(runPrefix), `${runPrefix}-f1`, 'test/one.test.ts', `${runPrefix}-f2`, 'test/two.test.ts');
    await redis.set(`${runPrefix}-f1-p1:sync-history:completed`, '1');
    await redis.set(`{${runPrefix}-f1-p2}:sync:meta`, '1');
    await redis.set(`${runPrefix}-f3-p1:session:1`, '1');

    const check = failIfKeysLeftUnder(redis, runPrefix);

    await expect(check).rejects.toThrow(
      `The tests left 3 Redis key(s) under ${runPrefix} (now deleted), under the prefixes of a test file that never ended, test/one.test.ts,`,
    );
    expect(await redis.exists(testFilesKey(runPrefix))).toBe(0);
  });

  it('names five keys at most however many are left', async () => {
    const prefix = testRedisPrefix();
    await Promise.all(Array.from({ length: 12 }, (_, index) => redis.set(`${prefix}:attempts:${index}`, '1')));

    const left = await keysLeftUnder(redis, prefix);
    await deleteKeysUnder(redis, prefix);

    expect(left.count).toBe(12);
    expect(left.sample).toHaveLength(5);
    expect(await keysLeftUnder(redis, prefix)).toMatchObject({ count: 0, sample: [] });
  });
});
