import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { StartupError } from './errors.js';
import { scopeListSchema } from './provider/scopes.js';
import type { RedisNode, RedisNodes, RedisTarget, SentinelMaster } from './queue/redis-target.js';

/**
 * Every setting of the app, parsed once at start-up from the environment. Entry points call the
 * loader of their process (`loadWebConfig`, `loadWorkerConfig`, or a script's own) and stop with its
 * one-line message when it throws; nothing else in the app reads `process.env`.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** One wording for every variable: "X is required: <what>" when absent, "X must be <what>" when wrong. */
function expecting(what: string) {
  return {
    error: (issue: { input?: unknown }) => (issue.input === undefined ? `is required: ${what}` : `must be ${what}`),
  };
}

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
const ENCRYPTION_KEY_HINT = '32 random bytes in base64 (create one with: openssl rand -base64 32)';

const baseUrl = z
  .url({ protocol: /^https?$/, ...expecting('an http(s) URL such as https://sync.example.com') })
  .transform((value) => value.replace(/\/+$/, ''));

/** The service holds tokens and health data: plain http is only for a sandbox on this machine. */
const serviceUrl = baseUrl.refine(
  (value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  },
  { error: 'must be https (plain http is allowed only for localhost, 127.0.0.1 or [::1])' },
);

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

const DATABASE_URL_HINT = 'sqlite:<path> (for example sqlite:./data/app.db) or a postgres:// URL';

const sqliteUrl = z
  .string()
  .regex(/^sqlite:.+/)
  .transform((value) => ({ kind: 'sqlite' as const, path: value.slice('sqlite:'.length) }));

const postgresUrl = z.url({ protocol: /^postgres(ql)?$/ }).transform((url) => ({ kind: 'postgres' as const, url }));

const databaseUrl = z.union([sqliteUrl, postgresUrl], expecting(DATABASE_URL_HINT));

const encryptionKey = z
  .base64(expecting(ENCRYPTION_KEY_HINT))
  .transform((value) => Buffer.from(value, 'base64'))
  .refine((key) => key.length === 32, expecting(ENCRYPTION_KEY_HINT));

const TRUST_PROXY_HINT =
  'the number of proxies in front of the app (e.g. 1), or their addresses: comma-separated IPs, CIDR ranges, or loopback, linklocal, uniquelocal';

/**
 * Which proxies' X-Forwarded-* headers to believe (Express's "trust proxy"): a hop count, or the
 * proxies' own addresses. Never "every address": a client could then claim any address and
 * escape the per-address sign-in limits.
 */
const trustProxy = z.union(
  [
    z
      .string()
      .regex(/^\d+$/)
      .transform((hops) => Number(hops)),
    z
      .string()
      .transform((value) => value.split(',').map((entry) => entry.trim()))
      .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6(), z.enum(['loopback', 'linklocal', 'uniquelocal'])]))),
  ],
  expecting(TRUST_PROXY_HINT),
);

const SMTP_URL_HINT = 'an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587';
const MAIL_FROM_HINT = 'the sender of the mails, e.g. "athlete-sync <no-reply@example.com>"';

const ABSORPTION_TYPES_HINT = 'comma-separated names in capitals, e.g. RAPID,SLOW';
const READ_SHARE_HINT = 'a share of the rate from 0.01 to 0.5, e.g. 0.25';
const WORKOUTS_CACHE_HINT = 'a number of seconds from 0 to 3600, e.g. 10';

const nonEmpty = (what: string) => z.string(expecting(what)).min(1, expecting(what));

const port = z.coerce
  .number(expecting('a port number (0-65535)'))
  .int(expecting('a port number (0-65535)'))
  .min(0, expecting('a port number (0-65535)'))
  .max(65535, expecting('a port number (0-65535)'));

const wholePositive = (what: string) => z.coerce.number(expecting(what)).int(expecting(what)).positive(expecting(what));

const positiveInt = (what: string, fallback: number) => wholePositive(what).default(fallback);

/** Bounded: a timer longer than about 24 days fires at once in Node, and an upload is held in memory. */
const wholeUpTo = (max: number, what: string) => wholePositive(what).max(max, expecting(what));

/**
 * Every setting, in three parts by the processes that read it: both the web and the worker
 * processes, the web processes only, the worker processes only. A process parses only its own, so
 * a setting has no effect, and a mistake in it stops nothing, in a process that does not read it
 * (one .env may serve them all). The README's configuration table says which reads which.
 */
const sharedSettings = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], expecting('fatal, error, warn, info, debug, trace or silent'))
    .default('info'),
  APP_BASE_URL: baseUrl,
  // Off unless set: metrics tell whoever can reach them how busy the app is.
  METRICS_PORT: port.optional(),
  METRICS_HOST: nonEmpty('an interface to listen on, e.g. 127.0.0.1').default('127.0.0.1'),
  // Bounded: a wait past a timer's range (about 24 days) would be cut to 1 ms, failing at once.
  STARTUP_TIMEOUT_S: wholeUpTo(3600, 'a number of seconds up to 3600, e.g. 20').default(20),
  SHUTDOWN_TIMEOUT_MS: wholeUpTo(3_600_000, 'milliseconds up to 3600000 (an hour), e.g. 45000').optional(),
  DATABASE_URL: z.string(expecting(DATABASE_URL_HINT)).prefault('sqlite:./data/app.db').pipe(databaseUrl),
  DATABASE_POOL_SIZE: positiveInt('a number of connections, e.g. 10', 10),
  // Unset, with neither of the two below: DEFAULT_REDIS_URL.
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, ...expecting(REDIS_URL_HINT) })
    // The path is the database number; the session store's client throws on any other path at start.
    .refine((url) => /^\/?\d*$/.test(new URL(url).pathname), expecting(REDIS_URL_HINT))
    .optional(),
  REDIS_CLUSTER_NODES: redisNodeList(6379, CLUSTER_NODES_HINT).optional(),
  REDIS_SENTINELS: redisNodeList(26379, SENTINELS_HINT).optional(),
  REDIS_SENTINEL_MASTER: sentinelMaster.optional(),
  // Braces make a Redis Cluster hash tag ({athlete-sync}): every key of the app, BullMQ's included,
  // then lives in one slot, as BullMQ's multi-key scripts need.
  REDIS_PREFIX: z
    .string()
    .regex(/^(\{[A-Za-z0-9_.-]+\}|[A-Za-z0-9_.-]+)$/, expecting(REDIS_PREFIX_HINT))
    .default('athlete-sync'),
  TOKEN_ENCRYPTION_KEY: z.string(expecting(ENCRYPTION_KEY_HINT)).pipe(encryptionKey),
  TOKEN_ENCRYPTION_PREVIOUS_KEYS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== ''),
    )
    .pipe(z.array(encryptionKey)),
  ATHLETE_BASE_URL: serviceUrl,
  ATHLETE_CLIENT_ID: nonEmpty('the client id registered with the Athlete Data Service'),
  ATHLETE_CLIENT_SECRET: nonEmpty('the client secret registered with the Athlete Data Service'),
  ATHLETE_SCOPES: z.string().prefault('workout:read workout:write health:write nutrition:write').pipe(scopeListSchema),
  // Section 4.2 shows the code exchange as JSON; the refresh request is "not shown" and we assume
  // it is encoded the same way (docs/assumptions.md). 'form' is RFC 6749's own encoding.
  ATHLETE_TOKEN_REQUEST_ENCODING: z.enum(['json', 'form'], expecting('json or form')).default('json'),
  ATHLETE_TIMEOUT_S: z.coerce
    .number(expecting('a number of seconds, e.g. 15'))
    .positive(expecting('a number of seconds, e.g. 15'))
    .default(15),
  // Bounded below: the largest file at the slowest rate stays within a timer's range (about 24 days).
  ATHLETE_UPLOAD_MIN_BYTES_PER_S: wholeUpTo(1024 ** 3, 'bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 262144 (256 KiB)')
    .min(1024, expecting('bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 262144 (256 KiB)'))
    .default(256 * 1024),
  // Bounded: the budget spaces requests in microseconds of Redis's clock.
  ATHLETE_RATE_LIMIT_PER_S: wholeUpTo(1_000_000, 'requests per second up to 1000000, e.g. 10').default(10),
  ATHLETE_READ_SHARE: z.coerce
    .number(expecting(READ_SHARE_HINT))
    .min(0.01, expecting(READ_SHARE_HINT))
    .max(0.5, expecting(READ_SHARE_HINT))
    .default(0.25),
  TOKEN_REFRESH_MARGIN_S: z.coerce
    .number(expecting('a number of seconds, e.g. 300'))
    .int(expecting('a whole number of seconds, e.g. 300'))
    .min(0, expecting('a number of seconds, e.g. 300'))
    .default(300),
};

const webSettings = {
  TRUST_PROXY: trustProxy.optional(),
  PORT: port.default(3000),
  // Loopback unless told otherwise: a container or a host behind a load balancer sets 0.0.0.0.
  HOST: nonEmpty('an interface to listen on, e.g. 127.0.0.1 or 0.0.0.0').default('127.0.0.1'),
  ADMIN_EMAILS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((email) => email.trim().toLowerCase())
        .filter((email) => email !== ''),
    )
    .pipe(z.array(z.email(expecting('comma-separated email addresses')))),
  ADMIN_QUEUE_ACTIONS: z
    .enum(['true', 'false'], expecting('true or false'))
    .default('false')
    .transform((value) => value === 'true'),
  SESSION_SECRET: z.string(expecting('at least 32 random characters')).min(32, expecting('at least 32 random characters')),
  SESSION_IDLE_MINUTES: positiveInt('a number of minutes, e.g. 30', 30),
  SESSION_MAX_DAYS: positiveInt('a number of days, e.g. 7', 7),
  ABSORPTION_TYPES: z
    .string()
    .default('RAPID')
    .transform((value) =>
      value
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== ''),
    )
    .pipe(z.array(z.string().regex(/^[A-Z_]+$/, expecting(ABSORPTION_TYPES_HINT))).min(1, expecting(ABSORPTION_TYPES_HINT))),
  MEAL_MAX_ITEMS_PER_DAY: positiveInt('a number of items, e.g. 100', 100),
  MEAL_NAME_MAX_LENGTH: positiveInt('a number of characters, e.g. 120', 120),
  MEAL_MAX_GRAMS: positiveInt('grams, e.g. 1000', 1000),
  MEAL_MAX_KCAL: positiveInt('kilocalories, e.g. 10000', 10_000),
  // Bounded: one import is one transaction holding the user's lock, and one insert of 11 values per item within SQLite's 32,766.
  MEALS_BATCH_MAX: wholeUpTo(2000, 'a number of items up to 2000, e.g. 500').default(500),
  // The document states no file size (§8): 25 MiB holds hours of second-by-second recording.
  ACTIVITY_MAX_BYTES: wholeUpTo(100 * 1024 * 1024, 'a number of bytes up to 104857600 (100 MiB), e.g. 26214400 (25 MiB)').default(
    25 * 1024 * 1024,
  ),
  // Uploads keep their files in ACTIVITY_UPLOAD_FOLDER until they are stored: this many files of ACTIVITY_MAX_BYTES in all (upload-slots.ts).
  ACTIVITY_MAX_CONCURRENT_UPLOADS: wholeUpTo(256, 'a number of uploads up to 256, e.g. 16').default(16),
  // Unset: the system's temporary folder.
  ACTIVITY_UPLOAD_FOLDER: z.string().refine(isAbsolute, expecting('an absolute path, e.g. /var/tmp/athlete-sync-uploads')).optional(),
  // Two, so that two people behind one address (a household, an office) can upload at once.
  ACTIVITY_UPLOADS_PER_ADDRESS: wholeUpTo(64, 'a number of uploads up to 64, e.g. 2').default(2),
  ACTIVITY_UPLOAD_TIMEOUT_S: wholeUpTo(3600, 'a number of seconds up to 3600, e.g. 120').default(120),
  // 16 KiB/s is 128 kbit/s, a poor mobile link: a 1 MB file in about a minute.
  ACTIVITY_UPLOAD_MIN_BYTES_PER_S: wholeUpTo(1024 ** 3, 'bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 16384 (16 KiB)')
    .min(1024, expecting('bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 16384 (16 KiB)'))
    .default(16 * 1024),
  // The slowest file fit-file.ts lets through takes about half a second per MiB here.
  ACTIVITY_CHECK_S_PER_MIB: wholeUpTo(60, 'a number of seconds up to 60, e.g. 2').default(2),
  SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: positiveInt('a number of failed sign-ins, e.g. 50', 50),
  SIGNUPS_PER_ADDRESS_PER_HOUR: positiveInt('a number of sign-ups, e.g. 20', 20),
  SESSIONS_PER_ADDRESS_PER_HOUR: positiveInt('a number of sessions, e.g. 100', 100),
  WORKOUTS_CACHE_S: z.coerce
    .number(expecting(WORKOUTS_CACHE_HINT))
    .int(expecting(WORKOUTS_CACHE_HINT))
    .min(0, expecting(WORKOUTS_CACHE_HINT))
    .max(3600, expecting(WORKOUTS_CACHE_HINT))
    .default(10),
  WORKOUTS_READS_PER_PERSON_PER_MINUTE: wholeUpTo(600, 'a number of lists up to 600, e.g. 6').default(6),
};

const workerSettings = {
  SYNC_QUIET_MS: positiveInt('milliseconds, e.g. 5000', 5000),
  SYNC_SWEEP_INTERVAL_MS: positiveInt('milliseconds, e.g. 30000', 30_000),
  SYNC_ATTEMPTS: positiveInt('a number of attempts, e.g. 8', 8),
  // One change every two seconds for a whole minute: more than anyone makes by hand, far fewer than a script.
  SYNC_FRESH_PER_PERSON_PER_MINUTE: wholeUpTo(60_000, 'a number of changes up to 60000, e.g. 30').default(30),
  WORKER_CONCURRENCY: positiveInt('a number of jobs, e.g. 16', 16),
  WORKER_LOCK_DURATION_MS: positiveInt('milliseconds, e.g. 5000', 5000),
  ACTIVITY_RETENTION: z.enum(['keep', 'prune-after-upload'], expecting('keep or prune-after-upload')).default('keep'),
  // Unset: no mail is sent (the app says so at start).
  SMTP_URL: z.url({ protocol: /^smtps?$/, ...expecting(SMTP_URL_HINT) }).optional(),
  MAIL_FROM: z.string().trim().min(1, expecting(MAIL_FROM_HINT)).optional(),
  MAIL_INTERVAL_MS: positiveInt('milliseconds, e.g. 10000', 10_000),
};

const envSchema = z.object({ ...sharedSettings, ...webSettings, ...workerSettings });

/** Settings that depend on each other; kept off envSchema, whose parts the single-purpose commands pick. */
function withMailSender<Schema extends z.ZodType<{ SMTP_URL?: string; MAIL_FROM?: string }>>(schema: Schema) {
  return schema.refine((env) => env.SMTP_URL === undefined || env.MAIL_FROM !== undefined, {
    path: ['MAIL_FROM'],
    error: `is required with SMTP_URL: ${MAIL_FROM_HINT}`,
  });
}

/** The one Redis the settings name (queue/redis-target.ts), as `redis`; settings naming none or several are refused. */
function withRedisTarget<Schema extends z.ZodType<RedisSettings>>(schema: Schema) {
  return schema.transform((env, context) => {
    const redis = redisTargetOf(env);
    if ('variable' in redis) {
      context.addIssue({ code: 'custom', path: [redis.variable], message: redis.problem, input: env[redis.variable] });
      return z.NEVER;
    }
    return { ...env, redis };
  });
}

type RedisSettings = Pick<
  Settings<typeof sharedSettings>,
  'REDIS_URL' | 'REDIS_CLUSTER_NODES' | 'REDIS_SENTINELS' | 'REDIS_SENTINEL_MASTER' | 'REDIS_PREFIX'
>;

/**
 * The one Redis the settings name, or what is wrong with them. A cluster needs a prefix in braces:
 * BullMQ's scripts and the app's own (the request budget) touch several keys at once, which a
 * cluster serves only from one hash slot.
 */
function redisTargetOf(env: RedisSettings): RedisTarget | { variable: keyof RedisSettings; problem: string } {
  const named = (['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const).filter((variable) => env[variable] !== undefined);
  if (named.length > 1) return { variable: named[1]!, problem: `must not be set with ${named[0]}: ${ONE_REDIS}` };
  if (env.REDIS_CLUSTER_NODES) {
    if (!env.REDIS_PREFIX.startsWith('{')) {
      return {
        variable: 'REDIS_PREFIX',
        problem: `must be in braces with REDIS_CLUSTER_NODES, so that every key of the app is in one hash slot: REDIS_PREFIX={${env.REDIS_PREFIX}}`,
      };
    }
    return { shape: 'cluster', seeds: env.REDIS_CLUSTER_NODES };
  }
  if (env.REDIS_SENTINELS) {
    if (!env.REDIS_SENTINEL_MASTER)
      return { variable: 'REDIS_SENTINEL_MASTER', problem: `is required with REDIS_SENTINELS: ${SENTINEL_MASTER_HINT}` };
    return { shape: 'sentinel', sentinels: env.REDIS_SENTINELS, master: env.REDIS_SENTINEL_MASTER };
  }
  if (env.REDIS_SENTINEL_MASTER)
    return { variable: 'REDIS_SENTINELS', problem: `is required with REDIS_SENTINEL_MASTER: ${SENTINELS_HINT}` };
  return { shape: 'server', url: env.REDIS_URL ?? DEFAULT_REDIS_URL };
}

const webEnvSchema = withRedisTarget(z.object({ ...sharedSettings, ...webSettings }));
const workerEnvSchema = withRedisTarget(withMailSender(z.object({ ...sharedSettings, ...workerSettings })));
const appEnvSchema = withRedisTarget(withMailSender(envSchema));

export type SettingName = keyof typeof envSchema.shape;
export type SettingReader = 'web' | 'worker' | 'scripts';

export type SharedConfig = ReturnType<typeof toSharedConfig>;
export type WebConfig = SharedConfig & ReturnType<typeof toWebConfig>;
export type WorkerConfig = SharedConfig & ReturnType<typeof toWorkerConfig>;
/** Both processes' settings: for what plays both parts at once (the tests' stack, the demo's set-up). */
export type Config = WebConfig & WorkerConfig;

export class ConfigError extends StartupError {
  override name = 'ConfigError';
}

export function loadWebConfig(env: NodeJS.ProcessEnv): WebConfig {
  const parsed = parseOrThrow(webEnvSchema, env);
  return { ...toSharedConfig(parsed), ...toWebConfig(parsed) };
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const parsed = parseOrThrow(workerEnvSchema, env);
  return { ...toSharedConfig(parsed), ...toWorkerConfig(parsed) };
}

export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = parseOrThrow(appEnvSchema, env);
  return { ...toSharedConfig(parsed), ...toWebConfig(parsed), ...toWorkerConfig(parsed) };
}

const DATABASE_KEYS = { DATABASE_URL: true, DATABASE_POOL_SIZE: true } as const;
const TOKEN_KEYS = { LOG_LEVEL: true, ...DATABASE_KEYS, TOKEN_ENCRYPTION_KEY: true, TOKEN_ENCRYPTION_PREVIOUS_KEYS: true } as const;

/** Which processes read each setting; `scripts` are npm run migrate, resync and reseal. */
export function settingReaders(): Map<SettingName, SettingReader[]> {
  const scripts = new Set<string>(Object.keys(TOKEN_KEYS));
  const readers = (name: string): SettingReader[] => [
    ...(name in sharedSettings || name in webSettings ? (['web'] as const) : []),
    ...(name in sharedSettings || name in workerSettings ? (['worker'] as const) : []),
    ...(scripts.has(name) ? (['scripts'] as const) : []),
  ];
  return new Map(Object.keys(envSchema.shape).map((name) => [name as SettingName, readers(name)]));
}

/** SQLite is one file in this process; Postgres is reached through a pool of this many connections. */
function toDatabaseConfig(env: Pick<z.infer<typeof envSchema>, keyof typeof DATABASE_KEYS>) {
  const url = env.DATABASE_URL;
  return url.kind === 'sqlite' ? url : { ...url, poolSize: env.DATABASE_POOL_SIZE };
}

/** For commands that only touch the database (`npm run migrate`): no secrets needed. */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv): Config['database'] {
  return toDatabaseConfig(parseOrThrow(envSchema.pick(DATABASE_KEYS), env));
}

/** For `npm run reseal`: the database and the token keys; no other secrets needed. */
export function loadTokenKeysConfig(env: NodeJS.ProcessEnv): Pick<Config, 'logLevel' | 'database' | 'tokenEncryption'> {
  const parsed = parseOrThrow(envSchema.pick(TOKEN_KEYS), env);
  return {
    logLevel: parsed.LOG_LEVEL,
    database: toDatabaseConfig(parsed),
    tokenEncryption: { key: parsed.TOKEN_ENCRYPTION_KEY, previousKeys: parsed.TOKEN_ENCRYPTION_PREVIOUS_KEYS },
  };
}

function parseOrThrow<Schema extends z.ZodType>(schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error));
  return parsed.data;
}

/** Reads `.env` from the working directory when there is one; real environment variables win. */
export function readEnvironment(): NodeJS.ProcessEnv {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return process.env;
}

type Settings<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

function toSharedConfig(env: Settings<typeof sharedSettings> & { redis: RedisTarget }) {
  return {
    logLevel: env.LOG_LEVEL,
    appBaseUrl: env.APP_BASE_URL,
    /** Prometheus metrics of this process, on a port of their own; `port` undefined: not served. */
    metrics: { port: env.METRICS_PORT, host: env.METRICS_HOST },
    // Unset: long enough for a request and a token refresh with its one retry without an answer,
    // each abandoned after ATHLETE_TIMEOUT_S; a large file's upload may be given longer
    // (ATHLETE_UPLOAD_MIN_BYTES_PER_S), and a stop cut shorter is like a kill.
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS ?? 3 * env.ATHLETE_TIMEOUT_S * 1000,
    /** How long the web and workers wait at start for Redis and the database before they give up. */
    startupTimeoutS: env.STARTUP_TIMEOUT_S,
    database: toDatabaseConfig(env),
    /** Where Redis is (queue/redis-target.ts), and the prefix of every key the app writes there. */
    redis: { target: env.redis, prefix: env.REDIS_PREFIX },
    tokenRefreshMarginS: env.TOKEN_REFRESH_MARGIN_S,
    /** The requests to the service that every process shares (queue/request-budget.ts), and the most of them reads may take. */
    requestBudget: { ratePerS: env.ATHLETE_RATE_LIMIT_PER_S, readShare: env.ATHLETE_READ_SHARE },
    tokenEncryption: { key: env.TOKEN_ENCRYPTION_KEY, previousKeys: env.TOKEN_ENCRYPTION_PREVIOUS_KEYS },
    athlete: {
      baseUrl: env.ATHLETE_BASE_URL,
      clientId: env.ATHLETE_CLIENT_ID,
      clientSecret: env.ATHLETE_CLIENT_SECRET,
      scopes: env.ATHLETE_SCOPES,
      tokenRequestEncoding: env.ATHLETE_TOKEN_REQUEST_ENCODING,
      timeoutS: env.ATHLETE_TIMEOUT_S,
      /** The slowest rate a request's body may travel at: each request may take timeoutS plus its body's size at this rate. */
      uploadMinBytesPerS: env.ATHLETE_UPLOAD_MIN_BYTES_PER_S,
      /** Registered with the service exactly as written here (section 4.1). */
      redirectUri: `${env.APP_BASE_URL}/oauth/callback`,
    },
  };
}

function toWebConfig(env: Settings<typeof webSettings> & Pick<Settings<typeof sharedSettings>, 'APP_BASE_URL'>) {
  return {
    // Unset: served over https, the app sits behind a TLS-terminating proxy, believed only on this
    // machine (`loopback`); a hop count would believe whatever a client reaching the app directly
    // claims. A proxy on another host must be named. Over http: none.
    trustProxy: env.TRUST_PROXY ?? (env.APP_BASE_URL.startsWith('https:') ? 'loopback' : false),
    port: env.PORT,
    host: env.HOST,
    /** Who may see the queue dashboard (lower-cased emails), and whether they may change jobs there. */
    admin: { emails: env.ADMIN_EMAILS, queueActions: env.ADMIN_QUEUE_ACTIONS },
    meals: {
      absorptionTypes: env.ABSORPTION_TYPES,
      maxItemsPerDay: env.MEAL_MAX_ITEMS_PER_DAY,
      maxNameLength: env.MEAL_NAME_MAX_LENGTH,
      maxGrams: env.MEAL_MAX_GRAMS,
      maxKcal: env.MEAL_MAX_KCAL,
      batchMax: env.MEALS_BATCH_MAX,
    },
    activities: {
      /** The largest .fit file an upload may carry; larger ones are answered 413. */
      maxBytes: env.ACTIVITY_MAX_BYTES,
      /** How many files of maxBytes the uploads in progress may hold in all, one upload per person at most. */
      maxConcurrentUploads: env.ACTIVITY_MAX_CONCURRENT_UPLOADS,
      /** Where the files of uploads in progress are written until they are stored. */
      uploadFolder: env.ACTIVITY_UPLOAD_FOLDER ?? tmpdir(),
      /** Uploads in progress from one client address (an IPv6 /64) at once. */
      uploadsPerAddress: env.ACTIVITY_UPLOADS_PER_ADDRESS,
      /** How long an upload's body may take to arrive. */
      uploadTimeoutMs: env.ACTIVITY_UPLOAD_TIMEOUT_S * 1000,
      /** The slowest rate an upload's body may arrive at, over any 10 s. */
      uploadMinBytesPerS: env.ACTIVITY_UPLOAD_MIN_BYTES_PER_S,
      /** How long checking a file may take for each MiB, beyond the 2 s every check may take (fit-file-checker.ts). */
      checkMsPerMib: env.ACTIVITY_CHECK_S_PER_MIB * 1000,
    },
    attemptLimits: {
      signInFailuresPerAddressPerHour: env.SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR,
      signUpsPerAddressPerHour: env.SIGNUPS_PER_ADDRESS_PER_HOUR,
      sessionsPerAddressPerHour: env.SESSIONS_PER_ADDRESS_PER_HOUR,
    },
    /** How often a person's workouts list asks the service (workouts/workouts.ts). */
    workoutReads: { cacheMs: env.WORKOUTS_CACHE_S * 1000, perPersonPerMinute: env.WORKOUTS_READS_PER_PERSON_PER_MINUTE },
    sessionSecret: env.SESSION_SECRET,
    session: { idleMinutes: env.SESSION_IDLE_MINUTES, maxDays: env.SESSION_MAX_DAYS },
  };
}

function toWorkerConfig(env: Settings<typeof workerSettings>) {
  return {
    sync: {
      quietMs: env.SYNC_QUIET_MS,
      sweepIntervalMs: env.SYNC_SWEEP_INTERVAL_MS,
      attempts: env.SYNC_ATTEMPTS,
      freshPerPersonPerMinute: env.SYNC_FRESH_PER_PERSON_PER_MINUTE,
      concurrency: env.WORKER_CONCURRENCY,
      lockDurationMs: env.WORKER_LOCK_DURATION_MS,
    },
    /** After the service has a file: keep its bytes, or delete them (the activity keeps its hash). */
    activityRetention: env.ACTIVITY_RETENTION,
    /** Mails to people whose connection needs them (src/notices/); `smtpUrl` undefined: mail is off. */
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, intervalMs: env.MAIL_INTERVAL_MS },
  };
}

/** One line, one problem per variable: the first thing wrong with it. */
function describeIssues(error: z.ZodError): string {
  const problemByVariable = new Map<string, string>();
  for (const issue of error.issues) {
    const variable = String(issue.path[0]);
    if (!problemByVariable.has(variable)) problemByVariable.set(variable, `${variable} ${issue.message}`);
  }
  return `Invalid configuration: ${[...problemByVariable.values()].join('; ')}`;
}
