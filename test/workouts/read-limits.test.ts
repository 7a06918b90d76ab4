import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import { redisServer } from '../../src/redis/redis-target.js';
import { createWorkoutReadLimits } from '../../src/workouts/read-limits.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

const connections = Array.from({ length: 2 }, () => createRedisConnection(redisServer(inject('redisUrl'))));

afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

describe('each person’s lists that ask the service', () => {
  it('are counted for a minute on every web process together, and apart from other people’s', async () => {
    const redisPrefix = testRedisPrefix();
    const [first, second] = connections.map((redis) =>
      createWorkoutReadLimits({ redis, redisPrefix, settings: { cacheMs: 10_000, perPersonPerMinute: 6 } }),
    );
    for (let list = 0; list < 3; list++) {
      expect(await first!.takeRead(1)).toBeUndefined();
      expect(await second!.takeRead(1)).toBeUndefined();
    }
    const refused = await second!.takeRead(1);
    expect(refused?.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(refused?.retryAfterS).toBeLessThanOrEqual(60);
    expect(await first!.takeRead(1)).toEqual({ retryAfterS: expect.any(Number) });
    expect(await first!.takeRead(2)).toBeUndefined();
  });
});
