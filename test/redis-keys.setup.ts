import { afterAll, inject } from 'vitest';
import { createRedisConnection } from '../src/queue/redis.js';
import { redisServer } from '../src/queue/redis-target.js';
import { deleteKeysUnder, testFileRedisPrefix } from './helpers/redis-keys.js';

// Runs last in every test file, after its own afterAll hooks have stopped its stacks and processes.
afterAll(async () => {
  const redis = createRedisConnection(redisServer(inject('redisUrl')));
  try {
    await deleteKeysUnder(redis, testFileRedisPrefix());
  } finally {
    redis.disconnect();
  }
});
