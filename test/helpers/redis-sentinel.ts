import type { Redis } from 'ioredis';
import { startRedisProcess, type RedisProcess } from './redis-process.js';
import { eventually } from './wait.js';

/** A primary, its replica and three sentinels watching them, each a redis-server of the test's own. */
export interface RedisSentinelSetup {
  /** The name the sentinels know the primary by. */
  masterName: string;
  /** `127.0.0.1:<port>` of each sentinel. */
  sentinelAddresses: string[];
  /** Kills the primary (SIGKILL, as a crash); the sentinels then promote the replica. */
  killPrimary(): Promise<void>;
  /** Resolves once the sentinels name the replica as the primary. */
  failedOver(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SentinelPasswords {
  /** What the primary and the replica take. */
  servers: string;
  /** What the sentinels take. */
  sentinels: string;
}

const MASTER_NAME = 'athlete-sync-primary';
const SENTINELS = 3;
/** A primary that does not answer for this long is down; two sentinels agreeing start a failover. */
const DOWN_AFTER_MS = 1000;
/** A replica's first sync at once, not after the 5 s a primary waits for more replicas to share it. */
const FAST_SYNC = ['repl-diskless-sync-delay 0'];

export async function startRedisSentinel(passwords: SentinelPasswords): Promise<RedisSentinelSetup> {
  const started: RedisProcess[] = [];
  const stop = () => Promise.all(started.map((server) => server.stop())).then(() => undefined);
  try {
    const primary = await startRedisProcess({ password: passwords.servers, config: [`masterauth ${passwords.servers}`, ...FAST_SYNC] });
    started.push(primary);
    const replica = await startRedisProcess({
      password: passwords.servers,
      config: [`masterauth ${passwords.servers}`, `replicaof 127.0.0.1 ${primary.port}`, ...FAST_SYNC],
    });
    started.push(replica);
    await replica.withConnection((redis) => eventually('the replica to be in sync', async () => ((await redis.info('replication')).includes('master_link_status:up') ? true : undefined)));
    const sentinels = await Promise.all(
      Array.from({ length: SENTINELS }, () =>
        startRedisProcess({
          sentinel: true,
          password: passwords.sentinels,
          config: [
            `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
            `sentinel auth-pass ${MASTER_NAME} ${passwords.servers}`,
            `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
            `sentinel failover-timeout ${MASTER_NAME} 10000`,
          ],
        }),
      ),
    );
    started.push(...sentinels);
    // A failover needs the sentinels to know each other (a quorum) and the replica to promote.
    await Promise.all(sentinels.map((sentinel) => sentinel.withConnection((redis) => eventually('the sentinels to know each other and the replica', () => knowsEveryone(redis), 20_000))));
    return {
      masterName: MASTER_NAME,
      sentinelAddresses: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`),
      killPrimary: () => primary.kill(),
      failedOver: async (timeoutMs = 30_000) => {
        await sentinels[0]!.withConnection((redis) =>
          eventually('the sentinels to name the replica as primary', async () => ((await primaryPort(redis)) === replica.port ? true : undefined), timeoutMs),
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function knowsEveryone(redis: Redis): Promise<true | undefined> {
  const [others, replicas] = await Promise.all([
    redis.call('SENTINEL', 'SENTINELS', MASTER_NAME) as Promise<unknown[]>,
    redis.call('SENTINEL', 'REPLICAS', MASTER_NAME) as Promise<unknown[]>,
  ]);
  return others.length === SENTINELS - 1 && replicas.length === 1 ? true : undefined;
}

async function primaryPort(redis: Redis): Promise<number> {
  const [, port] = (await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
  return Number(port);
}
