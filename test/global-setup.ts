import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { findRedis } from '../src/dev/find-redis.js';
import { createRedisConnection } from '../src/redis/redis.js';
import { redisServer } from '../src/redis/redis-target.js';
import { failIfKeysLeftUnder } from './helpers/redis-keys.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** Every Redis key the run writes starts with it (test/helpers/redis-keys.ts). */
    testRedisPrefix: string;
    /** Set per project in vitest.config.ts: where test/helpers/database.ts makes each test's database. */
    testDatabase: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
  }
}

const BUILD_SCRIPT = fileURLToPath(new URL('../scripts/build.js', import.meta.url));

/**
 * One Redis for the whole run, found the way the demo finds one; each test file uses its own key
 * prefix, under the run's, and deletes its keys when it ends. The run fails if any is left.
 * The production npm scripts run dist/: it is built here, once, before test files start them in
 * parallel (each script's own check then finds it up to date instead of building it at the same time).
 */
export default async function setup(project: TestProject) {
  execFileSync(process.execPath, [BUILD_SCRIPT, '--if-stale'], { stdio: 'inherit' });
  const redis = await findRedis();
  const testRedisPrefix = `athlete-sync-test-${randomBytes(4).toString('hex')}`;
  project.provide('redisUrl', redis.url);
  project.provide('testRedisPrefix', testRedisPrefix);
  return async () => {
    const connection = createRedisConnection(redisServer(redis.url));
    try {
      await failIfKeysLeftUnder(connection, testRedisPrefix);
    } catch (error) {
      // Vitest prints an error thrown by a global teardown but still exits 0: the exit code fails the run.
      process.exitCode = 1;
      throw error;
    } finally {
      connection.disconnect();
      await redis.stop();
    }
  };
}
