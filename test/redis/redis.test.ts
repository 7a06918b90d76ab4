import { Queue } from 'bullmq';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { createLogger } from '../../src/logger.js';
import {
  createProducerConnection,
  createRedisConnection,
  logReconnects,
  logUnlessRedisUnreachable,
  untilReady,
} from '../../src/redis/redis.js';
import { redisServer, type RedisTarget } from '../../src/redis/redis-target.js';
import { isRedisUnavailable } from '../../src/redis/redis-unavailable.js';
import { UnreachableAtStartError } from '../../src/reach-at-start.js';
import { createRedisSessionStore } from '../../src/web/session.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { eventually } from '../helpers/wait.js';

type LogLine = Record<string, unknown>;

function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = createLogger('info', 'test', { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

async function closedRedisUrl(): Promise<string> {
  return `redis://:hunter2@127.0.0.1:${await freePort()}`;
}

describe('a producer connection', () => {
  it('refuses a command sent before it is connected, and answers once untilReady resolves', async () => {
    const early = createProducerConnection(redisServer(inject('redisUrl')));
    // What a web process that listens at once would do with its first request.
    await expect(early.ping()).rejects.toThrow("Stream isn't writeable");
    early.disconnect();

    const target = redisServer(inject('redisUrl'));
    const ready = await untilReady(createProducerConnection(target), { target, timeoutS: 5 });
    expect(await ready.ping()).toBe('PONG');
    ready.disconnect();
  });
});

describe('at start, a Redis that cannot be reached', () => {
  it('is waited for STARTUP_TIMEOUT_S, then named in one line, without its password', async () => {
    const url = await closedRedisUrl();
    const port = new URL(url).port;
    const startedAt = Date.now();
    const waiting = untilReady(createRedisConnection(redisServer(url)), { target: redisServer(url), timeoutS: 1 });
    await expect(waiting).rejects.toThrow(UnreachableAtStartError);
    await expect(waiting).rejects.toThrow(
      `Cannot reach Redis at redis://127.0.0.1:${port} within 1 s (STARTUP_TIMEOUT_S): connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - startedAt).toBeLessThan(1500);
  });

  it('is named the same way by the session store', async () => {
    const url = await closedRedisUrl();
    const waiting = createRedisSessionStore({ target: redisServer(url), timeoutS: 1, prefix: 'unused' }, capturingLogger().logger);
    await expect(waiting).rejects.toThrow(
      /^Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ within 1 s \(STARTUP_TIMEOUT_S\): connect ECONNREFUSED/,
    );
  });
});

/** A cluster, and a primary through Sentinel, whose only node (sentinel) does not answer, and how the start names it. */
async function unreachableShapes(): Promise<Array<[string, RedisTarget, string]>> {
  const [clusterPort, sentinelPort] = [await freePort(), await freePort()];
  return [
    [
      'cluster',
      { shape: 'cluster', seeds: { nodes: [{ host: '127.0.0.1', port: clusterPort }], password: 'hunter2' } },
      `the Redis Cluster at redis://127.0.0.1:${clusterPort}`,
    ],
    [
      'Sentinel',
      {
        shape: 'sentinel',
        sentinels: { nodes: [{ host: '127.0.0.1', port: sentinelPort }] },
        master: { name: 'mymaster', password: 'hunter2', database: 0 },
      },
      `the Redis primary "mymaster" through the sentinels at redis://127.0.0.1:${sentinelPort}`,
    ],
  ];
}

describe('a Redis Cluster or a Sentinel setup that cannot be reached', () => {
  it('is waited for at start, then named in one line, by the ioredis connections and the session store alike', async () => {
    for (const [, target, named] of await unreachableShapes()) {
      const startedAt = Date.now();
      const waiting = untilReady(createRedisConnection(target), { target, timeoutS: 1 });
      await expect(waiting).rejects.toThrow(new RegExp(`^Cannot reach ${named} within 1 s \\(STARTUP_TIMEOUT_S\\): `));
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
      const session = createRedisSessionStore({ target, timeoutS: 1, prefix: 'unused' }, capturingLogger().logger);
      await expect(session).rejects.toThrow(new RegExp(`^Cannot reach ${named} within 1 s \\(STARTUP_TIMEOUT_S\\): `));
    }
  });

  it('fails a producer’s command at once, as Redis unavailable (a request answers 503)', async () => {
    for (const [shape, target] of await unreachableShapes()) {
      const producer = createProducerConnection(target);
      onTestFinished(() => producer.disconnect());
      const startedAt = Date.now();
      const failure: unknown = await producer.ping().catch((error: unknown) => error);
      expect(isRedisUnavailable(failure), `${shape}: ${String(failure)}`).toBe(true);
      expect(Date.now() - startedAt).toBeLessThan(500);
    }
  });
});

describe('a Redis lost after start', () => {
  it('is one warn line per reconnect attempt, with no stack, and one line when it is back', async () => {
    const server = await DisposableRedis.start();
    onTestFinished(() => server.stop());
    const { logger, lines } = capturingLogger();
    const redis = createRedisConnection(redisServer(server.url));
    onTestFinished(() => redis.disconnect());
    logReconnects(redis, logger, 'worker');
    // BullMQ repeats the connection's errors for each command; they are left to the lines above.
    const queue = new Queue('reconnect-test', { connection: redis, prefix: 'athlete-sync-test-reconnect' });
    queue.on('error', logUnlessRedisUnreachable(logger, 'queue error'));
    onTestFinished(() => queue.close());
    await untilReady(redis, { target: redisServer(server.url), timeoutS: 5 });

    const attempts: number[] = [];
    redis.on('reconnecting', () => attempts.push(Date.now()));
    await server.stop();
    await eventually('three reconnect attempts', async () => (attempts.length >= 3 ? true : undefined));
    await server.start();
    await eventually('Redis back', async () => (lines.some((line) => line.msg === 'Redis reachable again') ? true : undefined));

    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(attempts.length);
    for (const warning of warnings) {
      expect(warning).toMatchObject({ redisClient: 'worker', msg: expect.stringMatching(/^Redis unreachable \(.+\): reconnecting$/) });
      expect(warning).not.toHaveProperty('err');
    }
    expect(lines.filter((line) => line.level !== 40).map((line) => line.msg)).toEqual(['Redis reachable again']);
  });
});
