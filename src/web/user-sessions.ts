import { promisify } from 'node:util';
import type { Request, Response } from 'express';
import type { SessionData, Store } from 'express-session';
import type { SessionsEndedBy } from '../accounts/user.table.js';
import { endEverySession } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { endSession, renewUserSession, sessionKeyPrefix, startUserSession, type SessionLimits, type SessionUser } from './session.js';

/**
 * The sessions a person is signed in with, so that all of them can be ended (sign out everywhere,
 * a password change, deleting the account) without scanning Redis: a set of session ids per person,
 * `<prefix>:user-sessions:<userId>`, added to at every sign-in and pruned of the sessions that have
 * ended. The set expires with the longest-lived session it can hold: SESSION_MAX_DAYS after the
 * latest sign-in.
 *
 * Deleting the keys frees Redis at once (a session ended by another of the person's is replaced by a
 * small one saying why, for as long as it would have lived); what keeps an ended session ended is the person's session
 * generation (users.session_generation), which moves on in the store and which every request
 * compares with its session's (authentication.ts): a request under way writes its session back at
 * its end, re-creating a key deleted meanwhile, but not a generation.
 */
export interface UserSessions {
  /** Sign-in: a new session for the person, recorded in their set. */
  start(req: Request, user: SessionUser, now: Date): Promise<void>;
  /** A new session id for the same sign-in (after Connect), recorded in place of the old one. */
  renew(req: Request): Promise<void>;
  /** Sign-out of this session only. */
  end(req: Request, res: Response): Promise<void>;
  /**
   * After a new password moved the person's session generation on (ending every session): this one
   * continues under a new session id and that generation, the others leave Redis.
   */
  endOthers(req: Request, sessionGeneration: number): Promise<void>;
  /** Sign out everywhere: every session of the signed-in person ends, this one too. */
  endEverywhere(req: Request, res: Response, userId: number): Promise<void>;
  /** Ends every session of the person, for an account that may no longer exist. */
  endAll: (userId: number) => Promise<void>;
}

export interface UserSessionsDependencies {
  /** Where each person's session generation is kept. */
  db: Db;
  /** Commands fail at once while Redis is away (the producer connection), so a request never hangs. */
  redis: RedisConnection;
  redisPrefix: string;
  limits: SessionLimits;
  /** The sessions' store, where an ended session is left saying why. */
  store: Store;
}

/** Where a person's sessions are: the Redis connection and REDIS_PREFIX. */
type SessionsPlace = Pick<UserSessionsDependencies, 'redis' | 'redisPrefix'>;

function setOf(redisPrefix: string, userId: number): string {
  return `${redisPrefix}:user-sessions:${userId}`;
}

function sessionKey(redisPrefix: string, sessionId: string): string {
  return `${sessionKeyPrefix(redisPrefix)}${sessionId}`;
}

/** Why another session ends the person's others, which are left saying so (below), and the one that goes on. */
interface Ending {
  endedBy: SessionsEndedBy;
  store: Store;
  keep?: string;
}

/**
 * Ends the sessions in the person's set (but the one kept), and forgets them. Ended by another
 * session, each is replaced by one that signs no one in and says why, with the old one's cookie and
 * so its lifetime: its browser's next request tells the person (authentication.ts).
 */
async function endSessions({ redis, redisPrefix }: SessionsPlace, userId: number, ending?: Ending): Promise<void> {
  const set = setOf(redisPrefix, userId);
  const ended = (await redis.smembers(set)).filter((id) => id !== ending?.keep);
  if (ended.length === 0) return;
  const stored = ending ? await Promise.all(ended.map((id) => storedSession(ending.store, id))) : [];
  await redis
    .multi()
    .del(...ended.map((id) => sessionKey(redisPrefix, id)))
    .srem(set, ...ended)
    .exec();
  if (!ending) return;
  await Promise.all(
    ended.map(async (id, index) => {
      const cookie = stored[index]?.cookie;
      if (cookie) await promisify(ending.store.set.bind(ending.store))(id, { cookie, endedBy: ending.endedBy } as SessionData);
    }),
  );
}

async function storedSession(store: Store, id: string): Promise<SessionData | undefined> {
  return (await promisify(store.get.bind(store))(id)) ?? undefined;
}

/** Ends every session of the person, for an account that may no longer exist (the workers' sweep of deleted accounts). */
export async function endAllSessions(place: SessionsPlace, userId: number, ending?: Ending): Promise<void> {
  await endSessions(place, userId, ending);
  await place.redis.del(setOf(place.redisPrefix, userId));
}

export function createUserSessions({ db, redis, redisPrefix, limits, store }: UserSessionsDependencies): UserSessions {
  const place = { redis, redisPrefix };
  const setLifetimeS = limits.maxDays * 24 * 3600;

  /** Adds the session; drops those whose Redis key has gone (expired, or signed out of). */
  async function record(userId: number, sessionId: string): Promise<void> {
    const set = setOf(redisPrefix, userId);
    const known = await redis.smembers(set);
    const exists = known.length === 0 ? [] : await redis.pipeline(known.map((id) => ['exists', sessionKey(redisPrefix, id)])).exec();
    const ended = known.filter((_id, index) => exists?.[index]?.[1] === 0);
    const transaction = redis.multi();
    if (ended.length > 0) transaction.srem(set, ...ended);
    await transaction.sadd(set, sessionId).expire(set, setLifetimeS).exec();
  }

  async function renew(req: Request, sessionGeneration?: number): Promise<void> {
    const { userId } = req.session;
    const before = req.sessionID;
    await renewUserSession(req, sessionGeneration);
    if (userId === undefined) return;
    await redis.srem(setOf(redisPrefix, userId), before);
    await record(userId, req.sessionID);
  }

  async function end(req: Request, res: Response): Promise<void> {
    const { userId } = req.session;
    const sessionId = req.sessionID;
    await endSession(req, res);
    if (userId !== undefined) await redis.srem(setOf(redisPrefix, userId), sessionId);
  }

  return {
    async start(req, user, now) {
      await startUserSession(req, user, now);
      await record(user.id, req.sessionID);
    },
    renew: (req) => renew(req),
    end,
    async endOthers(req, sessionGeneration) {
      await renew(req, sessionGeneration);
      const userId = req.session.userId;
      if (userId !== undefined) await endSessions(place, userId, { endedBy: 'password_changed', store, keep: req.sessionID });
    },
    async endEverywhere(req, res, userId) {
      await endEverySession(db, userId);
      await end(req, res);
      await endAllSessions(place, userId, { endedBy: 'signed_out_everywhere', store });
    },
    endAll: (userId) => endAllSessions(place, userId),
  };
}
