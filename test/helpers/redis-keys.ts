import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { keyHolders, type RedisConnection } from '../../src/queue/redis-target.js';

/**
 * Every Redis key a test writes lives under the run's prefix (test/global-setup.ts), then a part
 * of the test file's own, then one per stack or process: `athlete-sync-test-<run>-<file>-<id>`,
 * or the same in braces for Redis Cluster. The file's keys are deleted when it ends
 * (test/redis-keys.setup.ts); the run fails if any is left after that.
 */

const randomPart = () => randomBytes(4).toString('hex');

let filePrefix: string | undefined;

/** The prefix of every key this test file writes (vitest gives each file its own modules). */
export function testFileRedisPrefix(): string {
  filePrefix ??= `${inject('testRedisPrefix')}-${randomPart()}`;
  return filePrefix;
}

/** A REDIS_PREFIX of its own for a stack or process, deleted with the file's keys. */
export function testRedisPrefix(): string {
  return `${testFileRedisPrefix()}-${randomPart()}`;
}

/** SCAN patterns for every key under `prefix`, plain or hash-tagged (`{prefix…}`). */
function patternsUnder(prefix: string): string[] {
  return [`${prefix}*`, `{${prefix}*`];
}

/** Batches of the keys matching `pattern`, from each server holding keys, with that server. */
async function* scanKeys(redis: RedisConnection, pattern: string): AsyncGenerator<{ server: RedisConnection; keys: string[] }> {
  for (const server of keyHolders(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) yield { server, keys };
    } while (cursor !== '0');
  }
}

/** Deletes every key matching `pattern` (SCAN and UNLINK in batches, never KEYS). */
export async function deleteKeys(redis: RedisConnection, pattern: string): Promise<void> {
  for await (const { server, keys } of scanKeys(redis, pattern)) await server.unlink(...keys);
}

export async function deleteKeysUnder(redis: RedisConnection, prefix: string): Promise<void> {
  for (const pattern of patternsUnder(prefix)) await deleteKeys(redis, pattern);
}

export interface LeftKeys {
  count: number;
  /** A few of them, to name in an error. */
  sample: string[];
}

export async function keysLeftUnder(redis: RedisConnection, prefix: string, sampleSize = 5): Promise<LeftKeys> {
  const left: LeftKeys = { count: 0, sample: [] };
  for (const pattern of patternsUnder(prefix)) {
    for await (const { keys } of scanKeys(redis, pattern)) {
      left.count += keys.length;
      left.sample.push(...keys.slice(0, sampleSize - left.sample.length));
    }
  }
  return left;
}

/** Throws, naming a few keys and their count, when any key under `prefix` is left; then deletes them. */
export async function failIfKeysLeftUnder(redis: RedisConnection, prefix: string): Promise<void> {
  const left = await keysLeftUnder(redis, prefix);
  if (left.count === 0) return;
  await deleteKeysUnder(redis, prefix);
  throw new Error(
    `The tests left ${left.count} Redis key(s) under ${prefix} (now deleted), e.g. ${left.sample.join(', ')}: ` +
      'write keys only under testRedisPrefix() (test/helpers/redis-keys.ts), and stop processes before the file ends.',
  );
}
