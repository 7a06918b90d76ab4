import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import { redisServer } from '../../src/redis/redis-target.js';
import { createFreshAllowance } from '../../src/sync/fresh-allowance.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

const connections = Array.from({ length: 2 }, () => createRedisConnection(redisServer(inject('redisUrl'))));

afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

describe('each person’s changes of now a minute', () => {
  it('are counted on every worker process together, apart from other people’s, down to none left', async () => {
    const redisPrefix = testRedisPrefix();
    const [first, second] = connections.map((redis) => createFreshAllowance({ redis, redisPrefix, perPersonPerMinute: 5 }));
    expect(await first!.left(1)).toBe(5);
    await first!.spend(1, 3);
    await second!.spend(1, 0);
    expect(await second!.left(1)).toBe(2);
    await second!.spend(1, 4);
    expect(await first!.left(1)).toBe(0);
    expect(await second!.left(2)).toBe(5);
  });
});
