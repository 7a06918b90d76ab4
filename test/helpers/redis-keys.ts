import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { keyHolders, type RedisConnection } from '../../src/redis/redis-target.js';

/**
 * Every Redis key a test writes lives under the run's prefix (test/global-setup.ts), then a part
 * of the test file's own, then one per stack or process: `athlete-sync-test-<run>-<file>-<id>`,
 * or the same in braces for Redis Cluster. The file's keys are deleted when it ends
 * (test/redis-keys.setup.ts); the run fails if any is left after that, naming the files whose
 * prefixes they are under.
 */

const randomPart = () => randomBytes(4).toString('hex');

let filePrefix: string | undefined;

/** The prefix of every key this test file writes. */
function testFileRedisPrefix(): string {
  filePrefix ??= `${inject('testRedisPrefix')}-${randomPart()}`;
  return filePrefix;
}

/** Which test file each file prefix of the run belonged to: a hash, file prefix to the file's path. */
export const testFilesKey = (runPrefix: string) => `${runPrefix}:test-files`;

/**
 * Deletes every key this test file (`testFile`, its path) wrote, and writes down which file the
 * prefix was, for the end of the run to name it if a key is written under it later. The files of
 * a vitest worker share its modules, so the next file's first key starts a prefix of its own.
 */
export async function deleteTestFileKeys(redis: RedisConnection, testFile: string): Promise<void> {
  await deleteKeysUnder(redis, testFileRedisPrefix());
  await redis.hset(testFilesKey(inject('testRedisPrefix')), testFileRedisPrefix(), testFile);
  filePrefix = undefined;
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

/** How many of the keys left an error names. */
const SAMPLE_SIZE = 5;

export interface LeftKeys {
  count: number;
  /** A few of them, to name in an error. */
  sample: string[];
  /** The test files whose prefixes they are under, by `testFileOf`. */
  testFiles: string[];
}

export async function keysLeftUnder(
  redis: RedisConnection,
  prefix: string,
  testFileOf: (key: string) => string | undefined = () => undefined,
): Promise<LeftKeys> {
  const left = { count: 0, sample: [] as string[], testFiles: new Set<string>() };
  for (const pattern of patternsUnder(prefix)) {
    for await (const { keys } of scanKeys(redis, pattern)) {
      left.count += keys.length;
      left.sample.push(...keys.slice(0, SAMPLE_SIZE - left.sample.length));
      for (const key of keys) left.testFiles.add(testFileOf(key) ?? 'a test file that never ended');
    }
  }
  return { ...left, testFiles: [...left.testFiles].sort() };
}

/** Takes (reads and deletes) the run's record of its test files: which file a key's prefix was. */
async function takeTestFiles(redis: RedisConnection, runPrefix: string): Promise<(key: string) => string | undefined> {
  const testFiles = Object.entries(await redis.hgetall(testFilesKey(runPrefix)));
  await redis.unlink(testFilesKey(runPrefix));
  return (key) => testFiles.find(([filePrefix]) => key.replace(/^\{/, '').startsWith(`${filePrefix}-`))?.[1];
}

/**
 * Throws when any key is left under the run's prefix, naming the test files it was written for
 * (after their end, then), a few keys and their count; then deletes them.
 */
export async function failIfKeysLeftUnder(redis: RedisConnection, runPrefix: string): Promise<void> {
  const left = await keysLeftUnder(redis, runPrefix, await takeTestFiles(redis, runPrefix));
  if (left.count === 0) return;
  await deleteKeysUnder(redis, runPrefix);
  throw new Error(
    `The tests left ${left.count} Redis key(s) under ${runPrefix} (now deleted), under the prefixes of ${left.testFiles.join(', ')}, ` +
      `e.g. ${left.sample.join(', ')}: write keys only under testRedisPrefix() (test/helpers/redis-keys.ts), and stop ` +
      'processes before the file ends.',
  );
}
