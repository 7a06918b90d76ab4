import { promisify } from 'node:util';
import type { Request, RequestHandler, Response } from 'express';
import session, { type SessionData, type Store } from 'express-session';
import { RedisStore } from 'connect-redis';
import type { SessionsEndedBy } from '../accounts/user.table.js';
import type { Logger } from '../logger.js';
import { logReconnects, REDIS_REPLY_TIMEOUT_MS, untilConnected, type RedisAtStart } from '../redis/redis.js';
import { sessionClient } from '../redis/redis-target.js';
import { SessionStoreWithDeadline } from './session-store-deadline.js';
import { SessionStoreWithFewerTouches } from './session-touches.js';

declare module 'express-session' {
  interface SessionData {
    userId: number;
    /**
     * The person's session generation at sign-in (users.session_generation): the session signs them
     * in only while it is still theirs (authentication.ts).
     */
    sessionGeneration: number;
    /** When the person signed in (epoch ms): the absolute limit counts from here, however active they are. */
    signedInAt: number;
    /**
     * Left in place of a session that another one ended (a new password, sign out everywhere): it
     * signs no one in, and its next request tells the person why (authentication.ts).
     */
    endedBy: SessionsEndedBy;
    /** Connect attempts under way, by state; each tab may hold its own (see connect.routes.ts). */
    pendingConnects: Record<string, { codeVerifier: string; expiresAt: number }>;
  }
}

export const SESSION_COOKIE = 'athlete_sync_sid';

/** Where the session store keeps each session: this, then the session id. */
export function sessionKeyPrefix(redisPrefix: string): string {
  return `${redisPrefix}:session:`;
}

/** Under REDIS_REPLY_TIMEOUT_MS: a connection to a silent Redis is dropped about as soon as a request gives up on it. */
const SESSION_PING_INTERVAL_MS = 1000;

export interface SessionLimits {
  /** A signed-in session ends this long after its last request. */
  idleMinutes: number;
  /** ...and this long after sign-in, however active. */
  maxDays: number;
}

/**
 * Sessions live in Redis under `<prefix>:session:`, so every web process sees every session.
 *
 * connect-redis supports only node-redis, while BullMQ needs ioredis: so sessions have a client of
 * their own, set up to behave like the app's ioredis producer (src/redis/redis.ts): at start it
 * waits for Redis for at most `timeoutS`, an outage later is logged once per reconnect attempt, and
 * a request waits at most REDIS_REPLY_TIMEOUT_MS for its session, however Redis fails.
 */
export async function createRedisSessionStore(redis: RedisAtStart & { prefix: string }, logger: Logger) {
  const connection = await sessionClient(redis.target, {
    // While Redis is unreachable a session lookup fails at once (the request gets an error page)
    // instead of waiting in the offline queue, and so holding the request, until Redis is back.
    disableOfflineQueue: true,
    // A PING whenever the connection is idle this long, so that one Redis stopped answering (a
    // partition, a stalled host) falls silent and is dropped after socketTimeout, then made again.
    pingInterval: SESSION_PING_INTERVAL_MS,
    socket: {
      socketTimeout: 2 * SESSION_PING_INTERVAL_MS,
      // Keep trying, at most every 2 s; node-redis's default strategy gives up for good on a socket timeout.
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000),
    },
  });
  logReconnects(connection.events, logger, 'sessions');
  await untilConnected(connection.events, connection.connect(), redis, () => connection.destroy());
  // No `ttl`: connect-redis expires each key with its session's cookie.
  const store = new SessionStoreWithDeadline(
    new RedisStore({ client: connection.client, prefix: sessionKeyPrefix(redis.prefix) }),
    REDIS_REPLY_TIMEOUT_MS,
  );
  return { store, close: () => connection.close() };
}

/**
 * The session cookie and its lifetimes. A session is stored only once it holds something, which
 * only signing in gives it (`saveUninitialized: false`; a signed-out visitor's forms carry a token
 * that needs no session, csrf.ts): so a page view of someone signed out stores nothing. Each
 * response sends the cookie again (`rolling`), and the Redis key's expiry is reset at most once per
 * SESSION_TOUCH_INTERVAL_MS by each web process (session-touches.ts): every request doing it cost
 * a round trip to Redis for nothing a JSON call needs. So a session lives `idleMinutes` past its
 * last request, a minute less at worst, and a sign-in older than `maxDays` is ended.
 */
export function createSessionMiddleware(options: {
  secret: string;
  store: Store;
  secure: boolean;
  limits: SessionLimits;
  clock: () => Date;
}): RequestHandler[] {
  const { secret, store, secure, limits, clock } = options;
  const maxSignInMs = limits.maxDays * 24 * 3600 * 1000;
  const idleMs = limits.idleMinutes * 60 * 1000;
  const sessions = session({
    name: SESSION_COOKIE,
    secret,
    store: new SessionStoreWithFewerTouches(store, sessionTouchIntervalMs(idleMs), clock),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure, maxAge: idleMs },
  });
  const endOldSignIns: RequestHandler = async (req, _res, next) => {
    // A sign-in with no recorded time is from before times were recorded: past any limit.
    const { userId, signedInAt = 0 } = req.session;
    if (userId !== undefined && clock().getTime() - signedInAt >= maxSignInMs) await regenerate(req);
    next();
  };
  return [sessions, endOldSignIns];
}

/** How often at most a process resets a session's expiry in Redis. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

/** A minute, or a tenth of the idle time when that is shorter: a session kept alive by its requests never runs out between touches. */
export function sessionTouchIntervalMs(idleMs: number): number {
  return Math.min(SESSION_TOUCH_INTERVAL_MS, idleMs / 10);
}

/** Who signs in, as a session keeps them. */
export interface SessionUser {
  id: number;
  session_generation: number;
}

/** Sign-in: a new session id (against session fixation) that keeps nothing but who signed in, under which generation, and when. */
export async function startUserSession(req: Request, user: SessionUser, now: Date): Promise<void> {
  await replaceSession(req, { userId: user.id, sessionGeneration: user.session_generation, signedInAt: now.getTime() });
}

/**
 * A new session id for the same sign-in (after Connect; after a new password, under the new
 * generation): the absolute limit still counts from sign-in.
 */
export async function renewUserSession(req: Request, sessionGeneration = req.session.sessionGeneration): Promise<void> {
  // The form token too (csrf-sync keeps it in the session): forms open in the person's other tabs still send.
  const { userId, signedInAt, csrfToken } = req.session;
  await replaceSession(req, { userId, sessionGeneration, signedInAt, csrfToken });
}

/** Sign-out: the session leaves Redis, and the browser is told to drop the cookie (same name, path and attributes). */
export async function endSession(req: Request, res: Response): Promise<void> {
  const cookie = req.session.cookie;
  await promisify(req.session.destroy.bind(req.session))();
  dropCookie(res, cookie);
}

/**
 * A session that no longer signs anyone in (every session of the person was ended since it began,
 * or the account is gone) leaves Redis, and the request goes on signed out, in a new session that
 * names no one: stored, as a visitor's is, once the rest of the request puts something in it (a
 * form's token, a message for the next page). Whatever wrote it back after it was ended (a request
 * that was under way then) revived nothing. The cookie is left: it names nothing now, and dropping
 * it could drop the new one a concurrent request (the password change itself) is setting.
 */
export async function endStaleSession(req: Request): Promise<void> {
  await regenerate(req);
}

/**
 * After its session was deleted from Redis by other means (the account is gone): nothing of it is
 * saved again at the end of this request, and the browser drops the cookie.
 */
export function forgetEndedSession(req: Request, res: Response): void {
  const cookie = req.session.cookie;
  // express-session saves nothing for a request without a session.
  delete (req as Partial<Request>).session;
  dropCookie(res, cookie);
}

function dropCookie(res: Response, { path, domain, httpOnly, secure, sameSite }: Request['session']['cookie']): void {
  res.clearCookie(SESSION_COOKIE, { path, domain, httpOnly, secure: secure === true, sameSite });
}

export async function saveSession(req: Request): Promise<void> {
  await promisify(req.session.save.bind(req.session))();
}

async function replaceSession(req: Request, data: Partial<Pick<SessionData, 'userId' | 'sessionGeneration' | 'signedInAt' | 'csrfToken'>>) {
  await regenerate(req);
  Object.assign(req.session, data);
  await saveSession(req);
}

async function regenerate(req: Request): Promise<void> {
  await promisify(req.session.regenerate.bind(req.session))();
}
