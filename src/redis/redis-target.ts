import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisClientOptions } from 'redis';

/**
 * Where the app's Redis is, and the one place that turns it into clients: one server (REDIS_URL),
 * a Redis Cluster (REDIS_CLUSTER_NODES) or a primary found through Redis Sentinel (REDIS_SENTINELS
 * and REDIS_SENTINEL_MASTER). Everything else asks for a connection with the options it needs and
 * never looks at the shape.
 */
export type RedisTarget =
  | { shape: 'server'; url: string }
  | { shape: 'cluster'; seeds: RedisNodes }
  | { shape: 'sentinel'; sentinels: RedisNodes; master: SentinelMaster };

export interface RedisNode {
  host: string;
  port: number;
}

/** Nodes, and the credentials each of them takes. */
export interface RedisNodes {
  nodes: RedisNode[];
  username?: string;
  password?: string;
}

/** The primary as the sentinels name it, and what its servers (primary and replicas) take. */
export interface SentinelMaster {
  name: string;
  username?: string;
  password?: string;
  database: number;
}

/** One server at `url` (a redis:// or rediss:// URL), as REDIS_URL names it. */
export function redisServer(url: string): RedisTarget {
  return { shape: 'server', url };
}

/** A connection of ioredis (queues, locks, limits, the web's producer): to one server, or to a cluster. */
export type RedisConnection = Redis | Cluster;

/**
 * An ioredis connection to the target with `options` as for one server. A cluster gets them for
 * each of its nodes, but `enableOfflineQueue` for itself; a cluster client follows MOVED answers
 * and slot changes. A Sentinel client asks the sentinels for the primary at every reconnect: when
 * its primary dies, or is turned into a replica (which closes its connections). Not ioredis's
 * `failoverDetector`, which would follow a primary that hands over while still up at once: its
 * watch on the previous primary outlives the connection, and when it fires while the client is
 * reconnecting, the client gives up for good (status `end`).
 */
export function ioredisConnection(target: RedisTarget, options: RedisOptions): RedisConnection {
  switch (target.shape) {
    case 'server':
      return new Redis(target.url, options);
    case 'cluster': {
      const { enableOfflineQueue, ...nodeOptions } = options;
      const { nodes, username, password } = target.seeds;
      return new Cluster(nodes, { enableOfflineQueue, redisOptions: { ...nodeOptions, username, password } });
    }
    case 'sentinel': {
      const { sentinels, master } = target;
      return new Redis({
        ...options,
        // While a primary is down, a reconnect at least every half second: the sentinels promote
        // a replica within seconds, and each attempt asks them for it.
        retryStrategy: (attempts) => Math.min(50 * 2 ** attempts, 500),
        sentinels: sentinels.nodes,
        sentinelUsername: sentinels.username,
        sentinelPassword: sentinels.password,
        name: master.name,
        username: master.username,
        password: master.password,
        db: master.database,
      });
    }
  }
}

/** The servers that hold the keys: each primary of a cluster, else the connection itself (for SCAN, which reads one server). */
export function keyHolders(connection: RedisConnection): Redis[] {
  return connection instanceof Cluster ? connection.nodes('master') : [connection];
}

/** What the clients of ioredis and node-redis, whatever the shape, tell about their connection. */
export interface ConnectionEvents {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'reconnecting' | 'ready', listener: () => void): unknown;
}

/** node-redis options of the session store's client as for one server; a cluster's nodes and the primary of a Sentinel setup get them too. */
export type SessionClientOptions = Pick<RedisClientOptions, 'disableOfflineQueue' | 'pingInterval' | 'socket'>;

/** The session store's node-redis client (connect-redis takes a client, a cluster or a Sentinel client alike). */
export interface SessionClient {
  client: object;
  events: ConnectionEvents;
  /** Resolves once connected; until then it keeps trying, as a client for one server does by itself. */
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
}

/**
 * The session store's client. node-redis is loaded here, at the web's start, so that a worker,
 * which has no sessions, never holds it (about 25 MB).
 */
export async function sessionClient(target: RedisTarget, options: SessionClientOptions): Promise<SessionClient> {
  const { createClient, createCluster, createSentinel } = await import('redis');
  switch (target.shape) {
    case 'server': {
      const client = createClient({ url: target.url, ...options });
      return { client, events: client, connect: () => client.connect(), close: () => client.close(), destroy: () => client.destroy() };
    }
    case 'cluster': {
      const { nodes, username, password } = target.seeds;
      const cluster = createCluster({
        rootNodes: nodes.map((node) => ({ socket: node })),
        defaults: { ...options, username, password },
      });
      return retryingConnect({
        client: cluster,
        // A cluster reports each node's connection: a node's reconnect is the store's.
        events: {
          on: (event: string, listener: (error: Error) => void) => {
            for (const name of CLUSTER_EVENTS[event as keyof typeof CLUSTER_EVENTS]) cluster.on(name, listener);
          },
        },
        connect: () => cluster.connect(),
        close: () => cluster.close(),
        destroy: () => void cluster.destroy(),
      });
    }
    case 'sentinel': {
      const { sentinels, master } = target;
      const sentinel = createSentinel({
        name: master.name,
        sentinelRootNodes: sentinels.nodes,
        nodeClientOptions: { ...options, username: master.username, password: master.password, database: master.database },
        sentinelClientOptions: { username: sentinels.username, password: sentinels.password },
      });
      return retryingConnect({
        client: sentinel,
        events: {
          on: (event: string, listener: (error: Error) => void) => {
            // It reports some failures as text rather than as an Error.
            sentinel.on(event, (reason?: unknown) =>
              listener(reason instanceof Error || reason === undefined ? (reason as Error) : new Error(inspect(reason))),
            );
          },
        },
        connect: () => sentinel.connect(),
        close: () => sentinel.close(),
        destroy: () => void sentinel.destroy(),
      });
    }
  }
}

const CLUSTER_EVENTS = { error: ['error', 'node-error'], reconnecting: ['node-reconnecting'], ready: ['node-ready'] } as const;

/**
 * A cluster or Sentinel client gives up its first connect when no node answers (a client for one
 * server retries by itself): tried again, with a short backoff, until it connects or is destroyed.
 */
function retryingConnect(session: SessionClient): SessionClient {
  let destroyed = false;
  return {
    ...session,
    async connect() {
      for (let pauseMs = 100; ; pauseMs = Math.min(2 * pauseMs, 1000)) {
        try {
          return await session.connect();
        } catch (error) {
          if (destroyed) throw error;
          await sleep(pauseMs);
        }
      }
    },
    destroy() {
      destroyed = true;
      session.destroy();
    },
  };
}

/** How start-up messages name the target: what it is, and where (without passwords). */
export function describeRedis(target: RedisTarget): { what: string; url: string | string[] } {
  switch (target.shape) {
    case 'server':
      return { what: 'Redis', url: target.url };
    case 'cluster':
      return { what: 'the Redis Cluster', url: urlsOf(target.seeds) };
    case 'sentinel':
      return { what: `the Redis primary "${target.master.name}" through the sentinels`, url: urlsOf(target.sentinels) };
  }
}

function urlsOf({ nodes }: RedisNodes): string[] {
  return nodes.map(({ host, port }) => `redis://${host.includes(':') ? `[${host}]` : host}:${port}`);
}
