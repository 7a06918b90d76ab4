import type { SessionData } from 'express-session';
import type { AuthorizationRequest } from '../provider/oauth.js';
import type { RedisConnection } from '../redis/redis-target.js';

type PendingConnects = SessionData['pendingConnects'];

/** How long a person has to approve at the service before the attempt expires. */
export const PENDING_CONNECT_TTL_MS = 10 * 60 * 1000;
/** Enough for a few tabs; more would only let a session grow without bound. */
const MAX_PENDING_CONNECTS = 5;

/** Adds an attempt, dropping expired ones and, past the limit, the oldest. */
export function addPendingConnect(pending: PendingConnects | undefined, attempt: AuthorizationRequest, now: Date): PendingConnects {
  const live = Object.entries(pending ?? {})
    .filter(([, entry]) => entry.expiresAt > now.getTime())
    .sort(([, a], [, b]) => a.expiresAt - b.expiresAt)
    .slice(-(MAX_PENDING_CONNECTS - 1));
  const added = { codeVerifier: attempt.codeVerifier, expiresAt: now.getTime() + PENDING_CONNECT_TTL_MS };
  return Object.fromEntries([...live, [attempt.state, added]]);
}

/** What a callback's state names in this session: a live attempt, one that ran out of time, or none. */
export type TakenAttempt = { kind: 'live'; codeVerifier: string } | { kind: 'expired' } | { kind: 'unknown' };

/**
 * Removes and returns the attempt with this state. The removal makes a state good for one callback
 * only: a replayed callback finds nothing and makes no token request. An attempt that expired is
 * told apart from one never issued or already used, so the person can be told which happened.
 */
export function takePendingConnect(
  pending: PendingConnects | undefined,
  state: string,
  now: Date,
): { remaining: PendingConnects; attempt: TakenAttempt } {
  const attempts = pending ?? {};
  // Own keys only: `state` comes from the callback's query, and every object inherits
  // `constructor`, `toString`, `__proto__` and the like, which name no attempt.
  const entry = Object.hasOwn(attempts, state) ? attempts[state] : undefined;
  const remaining = Object.fromEntries(Object.entries(attempts).filter(([key]) => key !== state));
  if (entry === undefined) return { remaining, attempt: { kind: 'unknown' } };
  if (entry.expiresAt <= now.getTime()) return { remaining, attempt: { kind: 'expired' } };
  return { remaining, attempt: { kind: 'live', codeVerifier: entry.codeVerifier } };
}

/**
 * Claims a state for one callback across all web processes. The session alone cannot: two
 * callbacks with the same state (a double navigation) may both read the session before either
 * saves it, and exchanging the code twice makes the service revoke the grant (RFC 6749 §4.1.2).
 */
export async function claimState(redis: RedisConnection, redisPrefix: string, state: string): Promise<boolean> {
  const claimed = await redis.set(`${redisPrefix}:oauth-state:${state}`, '1', 'PX', PENDING_CONNECT_TTL_MS, 'NX');
  return claimed === 'OK';
}
