import { relative } from 'node:path';
import { afterAll, expect, inject } from 'vitest';
import { createRedisConnection } from '../src/redis/redis.js';
import { redisServer } from '../src/redis/redis-target.js';
import { deleteTestFileKeys } from './helpers/redis-keys.js';

// Runs last in every test file, after its own afterAll hooks have stopped its stacks and processes.
afterAll(async () => {
  const redis = createRedisConnection(redisServer(inject('redisUrl')));
  try {
    await deleteTestFileKeys(redis, relative(process.cwd(), expect.getState().testPath ?? 'a file vitest did not name'));
  } finally {
    redis.disconnect();
  }
});
