import { z } from 'zod';
import { setting, SettingProblem, settingGroup, type SettingValues } from '../config/setting.js';
import { expecting } from '../config/value-schemas.js';
import type { RedisNode, RedisNodes, RedisTarget, SentinelMaster } from './redis-target.js';

const REDIS_URL_HINT = 'a redis:// or rediss:// URL, with a database number as its path if any (redis://cache:6379/3)';
const REDIS_PREFIX_HINT = 'letters, digits, "_", "." or "-", optionally in braces: {athlete-sync}';
const CLUSTER_NODES_HINT =
  'comma-separated host:port pairs or redis:// URLs of nodes of the cluster, e.g. redis://10.0.0.1:7000,redis://10.0.0.2:7000';
const SENTINELS_HINT =
  'comma-separated host:port pairs or redis:// URLs of the sentinels, e.g. redis://10.0.0.1:26379,redis://10.0.0.2:26379';
const SENTINEL_MASTER_HINT =
  'the name the sentinels know the primary by (mymaster), or a redis:// URL with that name as its host: redis://:password@mymaster/0';
const ONE_REDIS =
  'name one Redis: REDIS_URL (one server), REDIS_CLUSTER_NODES (a cluster) or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (through Sentinel)';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

interface RedisAddress {
  node: RedisNode;
  username: string;
  password: string;
}

/** A node of a list (REDIS_CLUSTER_NODES, REDIS_SENTINELS): host:port, or a redis:// URL; else what the entry must be. */
function redisAddress(entry: string, defaultPort: number, hint: string): RedisAddress | { mustBe: string } {
  const value = entry.includes('://') ? entry : `redis://${entry}`;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol === 'rediss:') return { mustBe: 'redis:// URLs (TLS, rediss://, is taken with REDIS_URL only)' };
  if (
    url?.protocol !== 'redis:' ||
    url.hostname === '' ||
    url.port === '0' ||
    !/^\/?$/.test(url.pathname) ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    return { mustBe: hint };
  }
  return {
    node: { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? defaultPort : Number(url.port) },
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/**
 * Addresses of Redis nodes, comma-separated; the credentials of a URL among them count for every
 * node (a client gives all of them the same), so two URLs may not give different ones.
 */
function redisNodeList(defaultPort: number, hint: string) {
  return z.string(expecting(hint)).transform((value, context): RedisNodes => {
    const addresses = value.split(',').map((entry) => redisAddress(entry.trim(), defaultPort, hint));
    const wrong = addresses.find((address) => 'mustBe' in address);
    if (wrong !== undefined) {
      context.addIssue({ code: 'custom', message: `must be ${wrong.mustBe}`, input: value });
      return z.NEVER;
    }
    const parsed = addresses.filter((address): address is RedisAddress => 'node' in address);
    const credentials = new Set(
      parsed.filter((address) => address.username || address.password).map((address) => `${address.username}:${address.password}`),
    );
    if (credentials.size > 1) {
      context.addIssue({
        code: 'custom',
        message: 'must be URLs that give the same user and password (or give them once): each node is given the same',
        input: value,
      });
      return z.NEVER;
    }
    const { username, password } = parsed.find((address) => address.username || address.password) ?? {};
    return { nodes: parsed.map((address) => address.node), username: username || undefined, password: password || undefined };
  });
}

/** What the sentinels call a primary (sentinel monitor <name> ...): no spaces, no colon. */
const MASTER_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * The primary's name, or a URL with it as its host (as redis-rb and GitLab write it) that gives
 * what the primary and its replicas take: redis://user:password@mymaster/2.
 */
const sentinelMaster = z.string(expecting(SENTINEL_MASTER_HINT)).transform((value, context): SentinelMaster => {
  if (MASTER_NAME.test(value)) return { name: value, database: 0 };
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (
    url?.protocol !== 'redis:' ||
    !MASTER_NAME.test(url.hostname) ||
    url.port !== '' ||
    !/^\/?\d*$/.test(url.pathname) ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    context.addIssue({ code: 'custom', message: `must be ${SENTINEL_MASTER_HINT}`, input: value });
    return z.NEVER;
  }
  return {
    name: url.hostname,
    username: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    database: Number(url.pathname.slice(1) || '0'),
  };
});

const REDIS_SETTINGS = {
  REDIS_URL: setting({
    schema: z
      .url({ protocol: /^rediss?$/, ...expecting(REDIS_URL_HINT) })
      // The path is the database number; the session store's client throws on any other path at start.
      .refine((url) => /^\/?\d*$/.test(new URL(url).pathname), expecting(REDIS_URL_HINT)),
    // Unset, with neither a cluster nor sentinels: DEFAULT_REDIS_URL.
    unset: `\`${DEFAULT_REDIS_URL}\``,
    meaning:
      'Redis for sessions (and queues and locks), one server; a database index in the URL is honoured; a node of a Redis Cluster is refused at start, naming `REDIS_CLUSTER_NODES`. Set only one of `REDIS_URL`, `REDIS_CLUSTER_NODES` and `REDIS_SENTINELS`.',
  }),
  REDIS_CLUSTER_NODES: setting({
    schema: redisNodeList(6379, CLUSTER_NODES_HINT),
    unset: '(off)',
    meaning:
      'A Redis Cluster instead: some of its nodes (seeds), comma-separated, each `host:port` or `redis://[user:password@]host:port` (port 6379 when left out). The credentials a URL gives are given to every node; no database index (a cluster has only 0), no TLS. Every process learns the other nodes from the seeds and follows MOVED answers, whichever node a seed is. Needs `REDIS_PREFIX` in braces: refused at start otherwise.',
  }),
  REDIS_SENTINELS: setting({
    schema: redisNodeList(26379, SENTINELS_HINT),
    unset: '(off)',
    meaning:
      "Redis through Sentinel instead: the sentinels, comma-separated, each `host:port` or `redis://[user:password@]host:port` with the sentinels' own credentials (port 26379 when left out); no TLS. Every process asks them for the primary, and after a failover follows the new one by itself. Needs `REDIS_SENTINEL_MASTER`.",
  }),
  REDIS_SENTINEL_MASTER: setting({
    schema: sentinelMaster,
    unset: '(off)',
    meaning:
      'With `REDIS_SENTINELS`: the name the sentinels monitor the primary by (`mymaster`), or a URL with that name as its host giving what the primary and its replicas take: `redis://[user:password@]mymaster[/database]`.',
  }),
  // Braces make a Redis Cluster hash tag ({athlete-sync}): every key of the app, BullMQ's included,
  // then lives in one slot, as BullMQ's multi-key scripts need.
  REDIS_PREFIX: setting({
    schema: z.string().regex(/^(\{[A-Za-z0-9_.-]+\}|[A-Za-z0-9_.-]+)$/, expecting(REDIS_PREFIX_HINT)),
    default: 'athlete-sync',
    meaning:
      'Prefix of every Redis key the app writes; in braces (`{athlete-sync}`) for Redis Cluster, so that all of them share one hash slot.',
  }),
};

/**
 * The one Redis the settings name, or what is wrong with them. A cluster needs a prefix in braces:
 * BullMQ's scripts and the app's own (the request budget) touch several keys at once, which a
 * cluster serves only from one hash slot.
 */
function redisTargetOf(values: SettingValues<typeof REDIS_SETTINGS>): RedisTarget | SettingProblem {
  const named = (['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const).filter((variable) => values[variable] !== undefined);
  if (named.length > 1) return new SettingProblem(named[1]!, `must not be set with ${named[0]}: ${ONE_REDIS}`);
  if (values.REDIS_CLUSTER_NODES) {
    if (!values.REDIS_PREFIX.startsWith('{')) {
      return new SettingProblem(
        'REDIS_PREFIX',
        `must be in braces with REDIS_CLUSTER_NODES, so that every key of the app is in one hash slot: REDIS_PREFIX={${values.REDIS_PREFIX}}`,
      );
    }
    return { shape: 'cluster', seeds: values.REDIS_CLUSTER_NODES };
  }
  if (values.REDIS_SENTINELS) {
    if (!values.REDIS_SENTINEL_MASTER)
      return new SettingProblem('REDIS_SENTINEL_MASTER', `is required with REDIS_SENTINELS: ${SENTINEL_MASTER_HINT}`);
    return { shape: 'sentinel', sentinels: values.REDIS_SENTINELS, master: values.REDIS_SENTINEL_MASTER };
  }
  if (values.REDIS_SENTINEL_MASTER)
    return new SettingProblem('REDIS_SENTINELS', `is required with REDIS_SENTINEL_MASTER: ${SENTINELS_HINT}`);
  return { shape: 'server', url: values.REDIS_URL ?? DEFAULT_REDIS_URL };
}

/** Where Redis is (redis-target.ts): one server, a cluster or through Sentinel; and the prefix of every key the app writes there. */
export const redisSettings = settingGroup({
  readBy: 'both',
  settings: REDIS_SETTINGS,
  read: (values) => {
    const target = redisTargetOf(values);
    return target instanceof SettingProblem ? target : { redis: { target, prefix: values.REDIS_PREFIX } };
  },
});
