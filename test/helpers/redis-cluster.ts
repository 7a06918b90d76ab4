import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { freePort } from '../../src/dev/free-port.js';
import { startRedisProcess } from './redis-process.js';
import { eventually } from './wait.js';

/** A Redis Cluster of masters only, each a redis-server of the test's own. */
export interface RedisCluster {
  /** The address (`127.0.0.1:<port>`) of a master that does not hold `key`'s hash slot: a plain connection there is answered MOVED for it. */
  nodeNotOwning(key: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Three masters (the fewest `redis-cli --cluster create` takes) that take `password`, the slots
 * shared among them, once every node says the cluster is ok.
 */
export async function startRedisCluster(password: string): Promise<RedisCluster> {
  const nodes = await Promise.all(
    [1, 2, 3].map(async () =>
      startRedisProcess({
        password,
        // The bus port is chosen free too: the default (port + 10000) may be taken.
        config: ['cluster-enabled yes', 'cluster-config-file nodes.conf', `cluster-port ${await freePort()}`, 'cluster-node-timeout 2000'],
      }),
    ),
  );
  const stop = () => Promise.all(nodes.map((node) => node.stop())).then(() => undefined);
  try {
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await promisify(execFile)('redis-cli', [
      '-a',
      password,
      '--no-auth-warning',
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await Promise.all(nodes.map((node) => node.withConnection((redis) => eventually('the cluster to be ok', () => clusterOk(redis)))));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodeNotOwning: async (key) => {
      const owner = await nodes[0]!.withConnection((redis) => ownerPort(redis, key));
      const other = nodes.find((node) => node.port !== owner)!;
      return `127.0.0.1:${other.port}`;
    },
    stop,
  };
}

async function clusterOk(redis: Redis): Promise<true | undefined> {
  const info = await redis.cluster('INFO');
  return info.includes('cluster_state:ok') ? true : undefined;
}

/** The port of the master serving `key`'s slot (CLUSTER KEYSLOT, then CLUSTER SLOTS). */
async function ownerPort(redis: Redis, key: string): Promise<number> {
  const slot = await redis.cluster('KEYSLOT', key);
  const range = (await redis.cluster('SLOTS')).find(([from, to]) => from <= slot && slot <= to);
  const master = range?.[2];
  if (!master) throw new Error(`no master serves slot ${slot}`);
  return master[1];
}
