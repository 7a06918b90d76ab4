import { withRequestedScopes } from '../../src/connections/capabilities.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { KIND_SETTING_GROUPS } from '../../src/kinds.js';
import { createAccessTokens, type AccessTokens } from '../../src/connections/access-token.js';
import { loadGrant, type StoredGrant } from '../../src/connections/connection.repository.js';
import { createTokenCipher, type TokenCipher } from '../../src/connections/token-crypto.js';
import { createDb, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { LevelWithSilent } from 'pino';
import { createLogger } from '../../src/logger.js';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/observability/metrics.js';
import { createServiceApi, type ServiceApi } from '../../src/provider/api.js';
import { createOAuthClient, type OAuthClient } from '../../src/provider/oauth.js';
import {
  createProducerConnection,
  createRedisConnection,
  logReconnects,
  logUnlessRedisUnreachable,
  untilReady,
} from '../../src/redis/redis.js';
import type { RedisConnection } from '../../src/redis/redis-target.js';
import { createRequestBudget, type RequestBudget } from '../../src/budget/request-budget.js';
import { createFreshAllowance, type FreshAllowance } from '../../src/sync/fresh-allowance.js';
import { closeSyncQueues, createSyncQueues, type SyncQueues } from '../../src/sync/queue.js';
import type { SendEntryDependencies } from '../../src/sync/send-entry.js';
import { createSenders } from '../../src/sync/senders.js';
import { createRedisSessionStore } from '../../src/web/session.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/app.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/sandbox/settings.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { CookieClient } from './http-client.js';
import { deleteKeys, testRedisPrefix } from './redis-keys.js';

export interface Stack {
  appUrl: string;
  sandboxUrl: string;
  config: Config;
  db: Db;
  sandbox: Sandbox;
  /** The stack's own database: a SQLite file, or a Postgres schema. */
  database: TestDatabase;
  /** A new client with its own cookies, like a new browser. */
  browser(): CookieClient;
  /** The sandbox's /_sandbox/state JSON. */
  sandboxState(): Promise<SandboxState>;
  /** Presents a refresh token straight to the sandbox's token endpoint, as another client (a thief) would. */
  presentRefreshToken(refreshToken: string): Promise<Response>;
  /** Changes the sandbox's settings at run time (POST /_sandbox/settings). */
  changeSandbox(settings: Partial<Settings>): Promise<void>;
  /**
   * The token lifecycle as a worker process would build it. `clock` lets a test move the app's
   * time; `redisPrefix` (default: the stack's) lets it play a process that does not share locks;
   * `cipher` one configured with other token keys.
   */
  accessTokens(options?: { clock?: () => Date; redisPrefix?: string; oauth?: OAuthClient; cipher?: TokenCipher }): AccessTokens;
  /** The stack's token cipher: its TOKEN_ENCRYPTION_KEY, no previous keys. */
  cipher: TokenCipher;
  /** The user's stored tokens, opened with the stack's key. */
  storedGrant(userId: number): Promise<StoredGrant | undefined>;
  /** The data API client as a worker builds it, on `accessTokens` (default: the stack's own). */
  serviceApi(accessTokens?: AccessTokens): ServiceApi;
  /** What the sync jobs get, as worker.ts builds it over the stack's database and settings; `api` defaults to serviceApi(). */
  sendDependencies(api?: ServiceApi): SendEntryDependencies;
  /** The app's queues (fresh and history lanes), on the stack's own Redis prefix. */
  syncQueues: SyncQueues;
  /** The web's connection to the stack's Redis. */
  redis: RedisConnection;
  /** The request budget as the app's processes share it (ATHLETE_RATE_LIMIT_PER_S, on the stack's Redis prefix). */
  budget: RequestBudget;
  /** Each person's changes of now a minute ahead of history, as the workers count them (SYNC_FRESH_PER_PERSON_PER_MINUTE). */
  freshAllowance: FreshAllowance;
  /** The environment the app was configured from: what a worker process of this stack needs. */
  env: Record<string, string>;
  /** What the app logged, when started with captureLogs. */
  logs: string[];
  /** What the app (and the stack's accessTokens and serviceApi) recorded. */
  metrics: PrometheusMetrics;
  close(): Promise<void>;
}

export interface SandboxNutritionDay {
  payload: { date: string; items: Array<Record<string, unknown>>; rawJson?: Record<string, unknown> };
  writes: number;
}

/** A workout the sandbox keeps per file (keyed by its SHA-256); `writes` counts the uploads of that file. */
export interface SandboxWorkout {
  payload: { name: string; metadata: Record<string, unknown> | null; bytes: number };
  writes: number;
}

export interface SandboxWellnessDay {
  payload: { date: string; rawJson?: Record<string, unknown>; [measurement: string]: unknown };
  writes: number;
}

export interface SandboxState {
  athletes: Record<
    string,
    {
      nutrition: Record<string, SandboxNutritionDay>;
      wellness?: Record<string, SandboxWellnessDay>;
      workouts: Record<string, SandboxWorkout>;
    }
  >;
  grants: Array<{ athlete: string; scopes: string[]; status: string; currentRefreshTokenSha256: string | null }>;
  counters: {
    requests: Record<string, Record<string, number>>;
    tokenGrants: Record<string, number>;
    refreshRequests: number;
    reuseDetections: number;
    [counter: string]: unknown;
  };
  [key: string]: unknown;
}

export interface StackOptions {
  sandbox?: Partial<Settings>;
  /** The settings that name Redis: by default REDIS_URL, the run's Redis (test/global-setup.ts). */
  redis?: Record<string, string>;
  env?: Record<string, string>;
  /** Keep every log line the app writes (web and accessTokens), at this level, in `stack.logs`. */
  captureLogs?: LevelWithSilent;
  /** The app's clock; the real time unless a test moves it. */
  clock?: () => Date;
}

async function listen(server: Server): Promise<number> {
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/**
 * The web app and the sandbox, each on its own port on this machine, talking over real HTTP;
 * a fresh database (test/helpers/database.ts) and a Redis key prefix of its own.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // The app's URL is part of its configuration and of the sandbox's, so its port is taken first. Held
  // from now on: a port looked up free and listened on later was taken meanwhile by another test's
  // outgoing connection (EADDRINUSE on a busy CI machine).
  const appServer = createServer().listen(0, '127.0.0.1');
  const appPort = await listen(appServer);
  const appUrl = `http://127.0.0.1:${appPort}`;

  const sandbox = createSandbox({
    settings: {
      ...DEFAULT_SETTINGS,
      logLevel: 'silent',
      redirectUris: [`${appUrl}/oauth/callback`],
      // The app sends only fields the interface document shows: a test fails at the first other one.
      strictFields: true,
      ...options.sandbox,
    },
  });
  const sandboxServer = sandbox.app.listen(0, '127.0.0.1');
  const sandboxUrl = `http://127.0.0.1:${await listen(sandboxServer)}`;

  const database = await createTestDatabase();
  const env: Record<string, string> = {
    LOG_LEVEL: 'silent',
    APP_BASE_URL: appUrl,
    PORT: String(appPort),
    DATABASE_URL: database.url,
    ...(options.redis ?? { REDIS_URL: inject('redisUrl') }),
    REDIS_PREFIX: testRedisPrefix(),
    SESSION_SECRET: randomUUID() + randomUUID(),
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ATHLETE_BASE_URL: sandboxUrl,
    ATHLETE_CLIENT_ID: DEFAULT_SETTINGS.clientId,
    ATHLETE_CLIENT_SECRET: DEFAULT_SETTINGS.clientSecret,
    // Test files sign up dozens of users from 127.0.0.1; the sign-up and session limits have their own tests.
    SIGNUPS_PER_ADDRESS_PER_HOUR: '1000',
    SESSIONS_PER_ADDRESS_PER_HOUR: '1000',
    ...options.env,
  };
  const config = loadConfig(env, KIND_SETTING_GROUPS);
  const logs: string[] = [];
  const logger = options.captureLogs
    ? createLogger(options.captureLogs, 'athlete-sync', { write: (line: string) => void logs.push(line) })
    : createLogger(config.logLevel);
  const db = createDb(config.database);
  const redis = createRedisConnection(config.redis.target);
  logReconnects(redis, logger, 'test stack');
  const cipher = createTokenCipher(config.tokenEncryption.key);
  const redisAtStart = { target: config.redis.target, timeoutS: config.startupTimeoutS };
  const producer = await untilReady(createProducerConnection(config.redis.target), redisAtStart);
  const syncQueues = createSyncQueues(producer, config.redis.prefix);
  for (const queue of Object.values(syncQueues)) queue.on('error', logUnlessRedisUnreachable(logger, 'sync queue: Redis error'));
  const budget = createRequestBudget({ redis: producer, prefix: config.redis.prefix, ...config.requestBudget });
  const freshAllowance = createFreshAllowance({
    redis: producer,
    redisPrefix: config.redis.prefix,
    perPersonPerMinute: config.sync.freshPerPersonPerMinute,
  });
  await migrateToLatest(db);
  const sessions = await createRedisSessionStore({ ...redisAtStart, prefix: config.redis.prefix }, logger);
  const clock = options.clock ?? (() => new Date());
  const metrics = createPrometheusMetrics();
  const accessTokens: Stack['accessTokens'] = ({
    clock: tokenClock = clock,
    redisPrefix = config.redis.prefix,
    oauth,
    cipher: tokenCipher = cipher,
  } = {}) =>
    createAccessTokens({
      db,
      cipher: tokenCipher,
      oauth: oauth ?? createOAuthClient(withRequestedScopes(config.athlete), tokenClock),
      redis,
      redisPrefix,
      refreshMarginS: config.tokenRefreshMarginS,
      tokenRequestTimeoutS: config.athlete.timeoutS,
      clock: tokenClock,
      logger,
      metrics,
    });

  const serviceApi: Stack['serviceApi'] = (tokens = accessTokens()) =>
    createServiceApi(config.athlete, { accessTokens: tokens, clock, metrics });
  const app = createApp({
    config,
    logger,
    metrics,
    db,
    sessionStore: sessions.store,
    oauth: createOAuthClient(withRequestedScopes(config.athlete), clock),
    cipher,
    redis: producer,
    syncQueues,
    serviceApi: serviceApi(),
    budget,
    clock,
  });
  appServer.on('request', app);
  // The app's connection for requests refuses commands until it is up (no offline queue): a
  // request before then would answer 503, so the stack is ready only once it is.
  if (producer.status !== 'ready') await once(producer, 'ready');

  return {
    appUrl,
    sandboxUrl,
    config,
    db,
    sandbox,
    database,
    browser: () => new CookieClient(appUrl),
    sandboxState: async () => (await (await fetch(`${sandboxUrl}/_sandbox/state`)).json()) as SandboxState,
    presentRefreshToken: (refreshToken) =>
      fetch(`${sandboxUrl}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: config.athlete.clientId,
          client_secret: config.athlete.clientSecret,
        }),
      }),
    changeSandbox: async (settings) => {
      const response = await fetch(`${sandboxUrl}/_sandbox/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      if (!response.ok) throw new Error(`sandbox settings refused: ${await response.text()}`);
    },
    accessTokens,
    cipher,
    storedGrant: async (userId) => {
      const grant = await loadGrant(db, cipher, userId);
      if (grant?.readable === false) throw new Error(`the stack's key does not open the tokens of user ${userId}`);
      return grant;
    },
    serviceApi,
    sendDependencies: (api = serviceApi()) => ({
      db,
      clock: () => new Date(),
      senders: createSenders({ config, db, api }),
    }),
    syncQueues,
    redis: producer,
    budget,
    freshAllowance,
    env,
    logs,
    metrics,
    close: async () => {
      appServer.closeAllConnections();
      sandboxServer.closeAllConnections();
      await Promise.all([new Promise((r) => appServer.close(r)), new Promise((r) => sandboxServer.close(r))]);
      await sessions.close();
      await closeSyncQueues(syncQueues);
      // Its sessions, attempt counts, OAuth states, locks and queue: under a REDIS_PREFIX a test chose too.
      // On the connection that waits through a reconnect: after a failover, sentinels that learn of
      // it late make the clients reconnect once more.
      await deleteKeys(redis, `${config.redis.prefix}:*`);
      producer.disconnect();
      redis.disconnect();
      await db.destroy();
      await database.drop();
    },
  };
}
