import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { findRedis } from '../src/dev/find-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** Set per project in vitest.config.ts: where test/helpers/database.ts makes each test's database. */
    testDatabase: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
  }
}

/** One Redis for the whole run, found the way the demo finds one; each test uses its own key prefix. */
export default async function setup(project: TestProject) {
  const redis = await findRedis();
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
