import type { Request, Response } from 'express';
import { endEverySession } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import type { RedisConnection } from '../queue/redis-target.js';
import { endSession, renewUserSession, sessionKeyPrefix, startUserSession, type SessionLimits, type SessionUser } from './session.js';

/**
 * The sessions a person is signed in with, so that all of them can be ended (sign out everywhere,
 * a password change, deleting the account) without scanning Redis: a set of session ids per person,
 * `<prefix>:user-sessions:<userId>`, added to at every sign-in and pruned of the sessions that have
 * ended. The set expires with the longest-lived session it can hold: SESSION_MAX_DAYS after the
 * latest sign-in.
 *
 * Deleting the keys frees Redis at once; what keeps an ended session ended is the person's session
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
}

/** Where a person's sessions are: the Redis connection and REDIS_PREFIX. */
type SessionsPlace = Pick<UserSessionsDependencies, 'redis' | 'redisPrefix'>;

function setOf(redisPrefix: string, userId: number): string {
  return `${redisPrefix}:user-sessions:${userId}`;
}

function sessionKey(redisPrefix: string, sessionId: string): string {
  return `${sessionKeyPrefix(redisPrefix)}${sessionId}`;
}

/** Ends the sessions in the person's set but `keep`, and forgets them. */
async function endSessions({ redis, redisPrefix }: SessionsPlace, userId: number, keep?: string): Promise<void> {
  const set = setOf(redisPrefix, userId);
  const ended = (await redis.smembers(set)).filter((id) => id !== keep);
  if (ended.length === 0) return;
  await redis
    .multi()
    .del(...ended.map((id) => sessionKey(redisPrefix, id)))
    .srem(set, ...ended)
    .exec();
}

/** Ends every session of the person, for an account that may no longer exist (the workers' sweep of deleted accounts). */
export async function endAllSessions(place: SessionsPlace, userId: number): Promise<void> {
  await endSessions(place, userId);
  await place.redis.del(setOf(place.redisPrefix, userId));
}

export function createUserSessions({ db, redis, redisPrefix, limits }: UserSessionsDependencies): UserSessions {
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
      if (userId !== undefined) await endSessions(place, userId, req.sessionID);
    },
    async endEverywhere(req, res, userId) {
      await endEverySession(db, userId);
      await end(req, res);
      await endAllSessions(place, userId);
    },
    endAll: (userId) => endAllSessions(place, userId),
  };
}
