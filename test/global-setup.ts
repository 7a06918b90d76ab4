import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

const BUILD_SCRIPT = fileURLToPath(new URL('../scripts/build.js', import.meta.url));

/**
 * One Redis for the whole run, found the way the demo finds one; each test uses its own key prefix.
 * The production npm scripts run dist/: it is built here, once, before test files start them in
 * parallel (each script's own check then finds it up to date instead of building it at the same time).
 */
export default async function setup(project: TestProject) {
  execFileSync(process.execPath, [BUILD_SCRIPT, '--if-stale'], { stdio: 'inherit' });
  const redis = await findRedis();
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
