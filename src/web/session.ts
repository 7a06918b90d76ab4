import { promisify } from 'node:util';
import type { Request, RequestHandler } from 'express';
import session, { type Store } from 'express-session';
import { RedisStore } from 'connect-redis';
import { createClient } from 'redis';

declare module 'express-session' {
  interface SessionData {
    userId: number;
    /** Connect attempts under way, by state; each tab may hold its own (see connect.routes.ts). */
    pendingConnects: Record<string, { codeVerifier: string; expiresAt: number }>;
  }
}

export const SESSION_COOKIE = 'athlete_sync_sid';
const SESSION_TTL_SECONDS = 14 * 24 * 3600;

/** Sessions live in Redis under `<prefix>:session:`, so every web process sees every session. */
export async function createRedisSessionStore(redisUrl: string, prefix: string) {
  // While Redis is away a request that needs its session fails at once (503) instead of waiting.
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  client.on('error', () => {
    // node-redis reconnects by itself; a request that needs the store meanwhile fails and is logged.
  });
  await client.connect();
  const store = new RedisStore({ client, prefix: `${prefix}:session:`, ttl: SESSION_TTL_SECONDS });
  return { store, close: () => client.close() };
}

export function createSessionMiddleware(options: { secret: string; store: Store; secure: boolean }): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: options.secret,
    store: options.store,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: options.secure, maxAge: SESSION_TTL_SECONDS * 1000 },
  });
}

/** A new session id for a newly signed-in user (against session fixation), keeping nothing else. */
export async function startUserSession(req: Request, userId: number): Promise<void> {
  await promisify(req.session.regenerate.bind(req.session))();
  req.session.userId = userId;
  await saveSession(req);
}

export async function endSession(req: Request): Promise<void> {
  await promisify(req.session.destroy.bind(req.session))();
}

export async function saveSession(req: Request): Promise<void> {
  await promisify(req.session.save.bind(req.session))();
}
