import type { Redis } from 'ioredis';
import { startRedisProcess, type RedisProcess } from './redis-process.js';
import { eventually } from './wait.js';

/**
 * A primary, two replicas and three sentinels watching them, each a redis-server of the test's own:
 * after one failover a replica is still there for the next.
 */
export interface RedisSentinelSetup {
  /** The name the sentinels know the primary by. */
  masterName: string;
  /** `127.0.0.1:<port>` of each sentinel. */
  sentinelAddresses: string[];
  /** The port of the server the sentinels name as primary. */
  primaryPort(): Promise<number>;
  /** Kills the primary (SIGKILL, as a crash), and says at once: the sentinels then promote a replica. */
  killPrimary(): Promise<void>;
  /** Resolves once the sentinels name a primary other than the one at `port`. */
  primaryMovedFrom(port: number, timeoutMs?: number): Promise<void>;
  /** SENTINEL FAILOVER: the primary, still up, hands over to a replica; resolves once the sentinels name it. */
  switchover(): Promise<void>;
  /** The connections of clients, neither sentinels nor replicas, that the server at `port` holds. */
  clientsOf(port: number): Promise<number>;
  stop(): Promise<void>;
}

export interface SentinelPasswords {
  /** What the primary and the replicas take. */
  servers: string;
  /** What the sentinels take. */
  sentinels: string;
}

const MASTER_NAME = 'athlete-sync-primary';
const REPLICAS = 2;
const SENTINELS = 3;
/** A primary that does not answer for this long is down; two sentinels agreeing start a failover. */
const DOWN_AFTER_MS = 1000;

export async function startRedisSentinel(passwords: SentinelPasswords): Promise<RedisSentinelSetup> {
  const started: RedisProcess[] = [];
  const stop = () => Promise.all(started.map((server) => server.stop())).then(() => undefined);
  // A replica's first sync at once, not after the 5 s a primary waits for more replicas to share it.
  const serverConfig = [`masterauth ${passwords.servers}`, 'repl-diskless-sync-delay 0'];
  try {
    const primary = await startRedisProcess({ password: passwords.servers, config: serverConfig });
    const replicas = await Promise.all(
      Array.from({ length: REPLICAS }, () =>
        startRedisProcess({ password: passwords.servers, config: [...serverConfig, `replicaof 127.0.0.1 ${primary.port}`] }),
      ),
    );
    const servers = [primary, ...replicas];
    started.push(...servers);
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
    const askSentinel = <T>(ask: (redis: Redis) => Promise<T>) => sentinels[0]!.withConnection(ask);
    const serverAt = (port: number) => servers.find((server) => server.port === port)!;
    // A failover needs the sentinels to know each other (a quorum) and a replica in sync to promote.
    const untilReplicaReady = () =>
      Promise.all(
        sentinels.map((sentinel) =>
          sentinel.withConnection((redis) =>
            eventually('the sentinels to know each other and a replica in sync', () => readyForFailover(redis), 20_000),
          ),
        ),
      );
    await untilReplicaReady();
    const primaryMovedFrom = async (port: number, timeoutMs = 30_000) => {
      await askSentinel((redis) =>
        eventually(
          'the sentinels to name another primary',
          async () => ((await primaryPort(redis)) !== port ? true : undefined),
          timeoutMs,
        ),
      );
    };
    return {
      masterName: MASTER_NAME,
      sentinelAddresses: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`),
      primaryPort: () => askSentinel(primaryPort),
      killPrimary: async () => serverAt(await askSentinel(primaryPort)).kill(),
      primaryMovedFrom,
      switchover: async () => {
        await untilReplicaReady();
        const from = await askSentinel(primaryPort);
        await askSentinel((redis) => redis.call('SENTINEL', 'FAILOVER', MASTER_NAME));
        await primaryMovedFrom(from);
      },
      clientsOf: (port) =>
        serverAt(port).withConnection(
          async (redis) =>
            String(await redis.client('LIST'))
              .split('\n')
              .filter(isAppClient).length,
        ),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function readyForFailover(redis: Redis): Promise<true | undefined> {
  const [others, replicas] = await Promise.all([
    redis.call('SENTINEL', 'SENTINELS', MASTER_NAME) as Promise<unknown[]>,
    redis.call('SENTINEL', 'REPLICAS', MASTER_NAME) as Promise<string[][]>,
  ]);
  const inSync = replicas.filter((fields) => {
    const replica = Object.fromEntries(fields.flatMap((_, index) => (index % 2 === 0 ? [[fields[index], fields[index + 1]]] : [])));
    return replica.flags === 'slave' && replica['master-link-status'] === 'ok';
  });
  return others.length === SENTINELS - 1 && inSync.length > 0 ? true : undefined;
}

async function primaryPort(redis: Redis): Promise<number> {
  const [, port] = (await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as [string, string];
  return Number(port);
}

/**
 * A line of CLIENT LIST for a client of the app: not a sentinel (named sentinel-…), a replica's
 * link (flag S), the server's own link to its primary (flag M), or this query.
 */
function isAppClient(line: string): boolean {
  return line !== '' && !/ name=sentinel-/.test(line) && !/ flags=\w*[SM]/.test(line) && !/ cmd=client\|list/.test(line);
}
