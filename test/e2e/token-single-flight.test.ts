import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import type { RedisConnection } from '../../src/redis/redis-target.js';
import { connectedUser } from '../helpers/flows.js';
import { workload } from '../helpers/kinds.js';
import { run } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

const HAMMER = fileURLToPath(new URL('./fixtures/token-hammer.ts', import.meta.url));
const PROCESSES = 3;
const CALLERS = 50;
const DURATION_MS = 7000;
const ACCESS_TOKEN_TTL_S = 2;
/**
 * Two-second tokens fit an hour's refreshes into seconds, but not the time a call waits for its
 * answer: on a loaded machine 150 callers' requests can wait longer than a token lives (seen: 9 s),
 * which a real hour-long token never meets. The service accepts tokens this long past their
 * expiry, so that a refused call means the app handed out a token it should not have; the app
 * still refreshes by the expiry it is told.
 */
const ACCESS_TOKEN_LEEWAY_S = 60;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let stack: Stack;
let userId: number;
let outputs: Array<{ stdout: string; stderr: string; code: number | null }>;

beforeAll(async () => {
  stack = await startStack({
    sandbox: {
      autoApprove: 'Ana',
      accessTokenTtlS: ACCESS_TOKEN_TTL_S,
      accessTokenLeewayS: ACCESS_TOKEN_LEEWAY_S,
      rotateRefreshTokens: true,
      reuseDetection: true,
      reuseGraceS: 0,
    },
    env: { ATHLETE_SCOPES: `workout:read ${workload.scope}` },
  });
  ({ userId } = await connectedUser(stack));
  const readyKey = `${stack.config.redis.prefix}:test:hammers-ready`;
  const startKey = `${stack.config.redis.prefix}:test:hammers-start`;
  const env = {
    PATH: process.env.PATH,
    ...stack.env,
    USER_ID: String(userId),
    CALLERS: String(CALLERS),
    DURATION_MS: String(DURATION_MS),
    READY_KEY: readyKey,
    START_KEY: startKey,
  };
  const finished = Promise.all(Array.from({ length: PROCESSES }, () => run(process.execPath, ['--import', 'tsx', HAMMER], env)));
  // One window for all processes, once every one of them has booted, however long that took.
  const redis = createRedisConnection(stack.config.redis.target);
  await eventually(
    'every hammer process to be ready',
    async () => (Number(await redis.get(readyKey)) === PROCESSES ? true : undefined),
    45_000,
  );
  await redis.set(startKey, String(Date.now() + 200));
  redis.disconnect();
  outputs = await finished;
}, 60_000);
afterAll(async () => {
  await stack.close();
});

describe(`${PROCESSES} processes × ${CALLERS} concurrent callers, access tokens living ${ACCESS_TOKEN_TTL_S} s, rotation with reuse detection`, () => {
  it('every call succeeded with a token from the app', () => {
    for (const output of outputs) {
      expect(output.stderr).toBe('');
      expect(output.code).toBe(0);
      const { calls, failures } = JSON.parse(output.stdout) as { calls: { ok: number; failed: number }; failures: string[] };
      expect(failures).toEqual([]);
      expect(calls.failed).toBe(0);
      // How many calls fit in the window depends on the machine's load; that they all succeed does not.
      expect(calls.ok).toBeGreaterThan(0);
    }
  });

  it('made exactly one refresh per expiry: every refresh was needed and its token used, none twice', async () => {
    const { counters } = await stack.sandboxState();
    const tokensSeen = new Set(outputs.flatMap((output) => (JSON.parse(output.stdout) as { tokens: string[] }).tokens));
    const refreshes = counters.tokenGrants.refresh_token ?? 0;
    console.log(`refreshes: ${refreshes}, distinct access tokens used: ${tokensSeen.size}, over ${DURATION_MS} ms`);
    expect(counters.refreshRequests).toBe(refreshes);
    // Each refresh's token was used (none was wasted); besides them, at most Connect's own token.
    expect(tokensSeen.size).toBeGreaterThanOrEqual(refreshes);
    expect(tokensSeen.size).toBeLessThanOrEqual(refreshes + 1);
    // Tokens are refreshed at half their life: at most one refresh per second of the run (plus the last).
    expect(refreshes).toBeGreaterThanOrEqual(Math.floor(DURATION_MS / 1000 / ACCESS_TOKEN_TTL_S));
    expect(refreshes).toBeLessThanOrEqual(Math.ceil(DURATION_MS / 1000) + 1);
  });

  it('caused no reuse detection, and the stored refresh token is the newest', async () => {
    const state = await stack.sandboxState();
    expect(state.counters.reuseDetections).toBe(0);
    expect(state.grants).toHaveLength(1);
    expect(state.grants[0]!.status).toBe('active');
    expect(state.grants[0]!.currentRefreshTokenSha256).toBe(sha256((await stack.storedGrant(userId))!.refreshToken));
  });

  it('left no token in its output or in Redis (canary: sandbox tokens start with sbx_)', async () => {
    for (const output of outputs) expect(output.stdout + output.stderr).not.toMatch(/sbx_(at|rt|code)_/);
    const redis = createRedisConnection(stack.config.redis.target);
    const keys = await redis.keys(`${stack.config.redis.prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join('\n')).not.toMatch(/sbx_/);
    for (const key of keys) expect(await dumpValue(redis, key)).not.toMatch(/sbx_(at|rt|code)_/);
    redis.disconnect();
  });
});

/** A key's value as text, whatever its type, so it can be searched. */
async function dumpValue(redis: RedisConnection, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, '0', '-1'));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}
