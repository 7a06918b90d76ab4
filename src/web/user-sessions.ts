import type { Request, Response } from 'express';
import type { RedisConnection } from '../queue/redis-target.js';
import { endSession, renewUserSession, sessionKeyPrefix, startUserSession, type SessionLimits } from './session.js';

/**
 * The sessions a person is signed in with, so that all of them can be ended (sign out everywhere,
 * a password change, deleting the account) without scanning Redis: a set of session ids per person,
 * `<prefix>:user-sessions:<userId>`, added to at every sign-in and pruned of the sessions that have
 * ended. The set expires with the longest-lived session it can hold: SESSION_MAX_DAYS after the
 * latest sign-in.
 */
export interface UserSessions {
  /** Sign-in: a new session for the person, recorded in their set. */
  start(req: Request, userId: number, now: Date): Promise<void>;
  /** A new session id for the same sign-in (after Connect), recorded in place of the old one. */
  renew(req: Request): Promise<void>;
  /** Sign-out of this session only. */
  end(req: Request, res: Response): Promise<void>;
  /** Ends every other session of the signed-in person; this one continues under a new session id. */
  endOthers(req: Request): Promise<void>;
  /** Ends every session of the person, for an account that may no longer exist. */
  endAll: (userId: number) => Promise<void>;
}

export interface UserSessionsDependencies {
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

export function createUserSessions({ redis, redisPrefix, limits }: UserSessionsDependencies): UserSessions {
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

  async function renew(req: Request): Promise<void> {
    const { userId } = req.session;
    const before = req.sessionID;
    await renewUserSession(req);
    if (userId === undefined) return;
    await redis.srem(setOf(redisPrefix, userId), before);
    await record(userId, req.sessionID);
  }

  return {
    async start(req, userId, now) {
      await startUserSession(req, userId, now);
      await record(userId, req.sessionID);
    },
    renew,
    async end(req, res) {
      const { userId } = req.session;
      const sessionId = req.sessionID;
      await endSession(req, res);
      if (userId !== undefined) await redis.srem(setOf(redisPrefix, userId), sessionId);
    },
    async endOthers(req) {
      await renew(req);
      const userId = req.session.userId;
      if (userId !== undefined) await endSessions(place, userId, req.sessionID);
    },
    endAll: (userId) => endAllSessions(place, userId),
  };
}
