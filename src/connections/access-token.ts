import { withRequestedScopes } from './capabilities.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SharedConfig } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { createOAuthClient, type OAuthClient } from '../provider/oauth.js';
import { ServiceError } from '../provider/service-error.js';
import { classifyTokenRequestError, toServiceError, type TokenRequestFailure } from '../provider/token-errors.js';
import type { TokenSet } from '../provider/token-set.js';
import { withRedisLock } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { keepAliveDue, refreshInterrupted } from './connection-health.js';
import {
  UNREADABLE_TOKENS,
  expireRefreshLease,
  loadGrant,
  markNeedsReconnect,
  releaseRefreshLease,
  storeRefreshedTokens,
  takeRefreshLease,
  type ReadState,
  type StoredGrant,
  type UnreadableGrant,
} from './connection.repository.js';
import type { StatusReason } from './connection.table.js';
import { createTokenCipher, type TokenCipher } from './token-crypto.js';

/**
 * The only way any code gets an access token for a user, and the only place that refreshes.
 *
 * Refresh tokens may rotate on every refresh (sections 5 and 9), and a rotated-out token
 * presented again can make a strict service revoke the whole grant. So refreshes are single
 * flight (docs/architecture.md, decision 5): one per user within this process (callers share the promise), and
 * across all processes by a lease on the connection row, taken by compare-and-swap before the
 * token request and ended in the same write that stores the new tokens. A Redis lock per user
 * spares the database the waiting, but correctness rests on the lease: a process killed mid-refresh
 * leaves it behind, so the next one knows that a refresh's outcome is unknown.
 */
export interface AccessTokens {
  /** A valid access token, refreshed first when it expires within the refresh margin. */
  accessTokenFor(userId: number): Promise<string>;
  /** After the service answered 401 to `rejected`: a newer token, refreshing unless someone already did. */
  replaceRejected(userId: number, rejected: string): Promise<string>;
  /** Refreshes a grant nobody used for a while, before its refresh token could lapse (keepAliveDue). */
  keepAlive(userId: number): Promise<void>;
}

export interface AccessTokenDependencies {
  db: Db;
  cipher: TokenCipher;
  oauth: OAuthClient;
  redis: RedisConnection;
  redisPrefix: string;
  /** Refresh this long before expiry; tokens living under twice this refresh at half their life. */
  refreshMarginS: number;
  /** The token request timeout, which bounds how long a refresh holds its lease. */
  tokenRequestTimeoutS: number;
  clock: () => Date;
  logger: Logger;
  metrics: Metrics;
}

/**
 * When a refresh got no answer at all (timeout, reset), the service may still have rotated the
 * token. Presenting the same token again at once is the only recovery the protocol allows, and
 * succeeds when the service grants a reuse grace period. Without an answer to that either, the
 * lease is left run out, and the next refresh recovers it (recoverInterruptedRefresh).
 */
const RETRIES_WITHOUT_ANSWER = 1;
/** Beyond its token requests' timeouts, time for a refresh to store what it got before its lease runs out. */
const LEASE_MARGIN_S = 5;
/** How often a process waiting for another's refresh looks at the lease again. */
const LEASE_POLL_MS = 100;

/** AccessTokens as a process builds them from its settings (worker.ts and the tests' processes). */
export function accessTokensFromConfig(
  config: SharedConfig,
  parts: Pick<AccessTokenDependencies, 'db' | 'redis' | 'clock' | 'logger' | 'metrics'>,
): AccessTokens {
  return createAccessTokens({
    ...parts,
    cipher: createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys),
    oauth: createOAuthClient(withRequestedScopes(config.athlete), parts.clock),
    redisPrefix: config.redis.prefix,
    refreshMarginS: config.tokenRefreshMarginS,
    tokenRequestTimeoutS: config.athlete.timeoutS,
  });
}

/** Newer tokens were stored while this refresh ran: look at the connection again. */
const SUPERSEDED = Symbol('superseded');

/** One refresh under one lease; `refusal` is how the person is told if the service refuses it. */
interface RefreshAttempt {
  grant: StoredGrant;
  leaseOwner: string;
  refusal: Extract<StatusReason, 'grant_revoked' | 'refresh_interrupted'>;
}

export function createAccessTokens(deps: AccessTokenDependencies): AccessTokens {
  const { db, cipher, oauth, redis, redisPrefix, clock } = deps;
  const log = deps.logger.child({ module: 'access-token' });
  const leaseMs = ((RETRIES_WITHOUT_ANSWER + 1) * deps.tokenRequestTimeoutS + LEASE_MARGIN_S) * 1000;
  const inFlight = new Map<number, Promise<string>>();

  function refreshDue(grant: StoredGrant): boolean {
    const lifetimeMs = grant.expiresAt.getTime() - grant.issuedAt.getTime();
    const marginMs = Math.min(deps.refreshMarginS * 1000, lifetimeMs / 2);
    return clock().getTime() >= grant.expiresAt.getTime() - marginMs;
  }

  /** The stored grant if it can still be used; otherwise the person must reconnect. */
  async function usableGrant(userId: number): Promise<StoredGrant> {
    const grant = await loadGrant(db, cipher, userId);
    if (!grant) throw new ServiceError('needs-reconnect', 'not connected to the Athlete Data Service');
    if (grant.status === 'needs_reconnect') throw new ServiceError('needs-reconnect', 'the connection needs reconnecting');
    if (!grant.readable) return unopened(grant);
    if (grant.refreshExpiresAt && grant.refreshExpiresAt <= clock()) {
      return needsReconnect(grant, 'refresh_token_expired', 'the refresh token has expired');
    }
    return grant;
  }

  /**
   * Tokens this process cannot open. Damaged ones no key will open: the person must reconnect. A key
   * this process does not have may be a newer one it was not given yet (a process not yet restarted
   * in a rotation, or a reseal run early): the connection is left as it is, and the work is retried
   * later, by a process that has the key. Only `npm run reseal -- --forget-key` declares a key gone.
   */
  async function unopened(grant: UnreadableGrant): Promise<never> {
    const problem = UNREADABLE_TOKENS[grant.unreadable];
    const logged = { userId: grant.userId, tokenKeyId: grant.tokenKeyId };
    if (grant.unreadable === 'damaged') {
      log.warn(logged, `${problem}; the connection needs reconnecting`);
      return needsReconnect(grant, 'tokens_damaged', problem);
    }
    deps.metrics.tokenKeyMissing(grant.tokenKeyId);
    log.warn(logged, `${problem}; the connection is left as it is, and the work waits for a process with that key`);
    throw new ServiceError('retryable', 'the stored tokens are sealed with a key this process does not have; retried later', {
      heldHere: true,
    });
  }

  /** Marks the connection (unless it changed meanwhile) and stops the work that needed a token: it waits. */
  async function needsReconnect(read: ReadState, reason: StatusReason, message: string): Promise<never> {
    await markNeedsReconnect(db, read, reason, clock());
    throw new ServiceError('needs-reconnect', message);
  }

  function refreshSingleFlight(userId: number, stillNeeded: (grant: StoredGrant) => boolean): Promise<string> {
    const running = inFlight.get(userId);
    if (running) return running;
    const refresh = withRedisLock(redis, `${redisPrefix}:lock:refresh:${userId}`, { ttlMs: leaseMs, waitMs: leaseMs + 5000 }, () =>
      refreshUnderLease(userId, stillNeeded),
    ).finally(() => inFlight.delete(userId));
    inFlight.set(userId, refresh);
    return refresh;
  }

  /**
   * Reads the connection until this process may act on it: another's live lease is waited for
   * (then its tokens are read), an expired one is taken over to recover its refresh, and
   * otherwise the lease is taken if a refresh is still needed. A lost compare-and-swap reads again.
   */
  async function refreshUnderLease(userId: number, stillNeeded: (grant: StoredGrant) => boolean): Promise<string> {
    for (;;) {
      const grant = await usableGrant(userId);
      const now = clock();
      const interrupted = refreshInterrupted(grant, now);
      if (grant.refreshLease && !interrupted) {
        await sleep(Math.min(LEASE_POLL_MS, grant.refreshLease.until.getTime() - now.getTime()));
        continue;
      }
      if (!interrupted && !stillNeeded(grant)) return grant.accessToken;
      const leaseOwner = randomUUID();
      if (!(await takeRefreshLease(db, grant, { owner: leaseOwner, until: new Date(now.getTime() + leaseMs) }))) continue;
      const outcome = interrupted
        ? await recoverInterruptedRefresh({ grant, leaseOwner, refusal: 'refresh_interrupted' })
        : await refreshGrant({ grant, leaseOwner, refusal: 'grant_revoked' }, RETRIES_WITHOUT_ANSWER);
      if (outcome !== SUPERSEDED) return outcome;
    }
  }

  /**
   * A refresh before this one was interrupted (its process was killed, or its answer never came):
   * the service may have rotated the token we hold. Presenting it once is the one recovery the
   * protocol allows, and succeeds when the service grants a reuse grace period; a refusal is
   * told to the person as an interrupted refresh.
   */
  function recoverInterruptedRefresh(attempt: RefreshAttempt): Promise<string | typeof SUPERSEDED> {
    log.warn({ userId: attempt.grant.userId }, 'a refresh was interrupted; presenting the stored refresh token once');
    return refreshGrant(attempt, 0);
  }

  async function refreshGrant(attempt: RefreshAttempt, retriesWithoutAnswer: number): Promise<string | typeof SUPERSEDED> {
    const { grant } = attempt;
    let tokens: TokenSet;
    try {
      tokens = await oauth.refresh(grant.refreshToken, grant.scopes);
    } catch (error) {
      const failure = classifyTokenRequestError(error);
      deps.metrics.tokenRefreshed(failure.kind);
      return recoverFromFailedRefresh(attempt, failure, retriesWithoutAnswer);
    }
    deps.metrics.tokenRefreshed('refreshed');
    // RFC 6749 §6: without a new refresh token, the one presented stays valid, with its expiry.
    // A new one's expiry is only what this response says (section 2.1), never the old one's.
    const issued = tokens.refreshToken
      ? { ...tokens, refreshToken: tokens.refreshToken }
      : { ...tokens, refreshToken: grant.refreshToken, refreshExpiresAt: tokens.refreshExpiresAt ?? grant.refreshExpiresAt };
    if (await storeRefreshedTokens(db, cipher, grant, issued, clock())) {
      log.info({ userId: grant.userId, rotated: tokens.refreshToken !== undefined }, 'tokens refreshed');
      return tokens.accessToken;
    }
    // Newer tokens were stored meanwhile (a reconnect, or a process that took over this lease after it ran out): they win.
    return SUPERSEDED;
  }

  async function recoverFromFailedRefresh(
    attempt: RefreshAttempt,
    failure: TokenRequestFailure,
    retriesWithoutAnswer: number,
  ): Promise<string | typeof SUPERSEDED> {
    const { grant, leaseOwner } = attempt;
    if (failure.kind === 'retryable' && failure.status === undefined) {
      if (retriesWithoutAnswer > 0) {
        log.warn({ userId: grant.userId, failure }, 'refresh got no answer; presenting the same token again');
        return refreshGrant(attempt, retriesWithoutAnswer - 1);
      }
      // The outcome stays unknown: whoever refreshes next finds the lease run out and recovers.
      await expireRefreshLease(db, grant.userId, leaseOwner, clock());
      throw toServiceError(failure);
    }
    if (failure.kind === 'needs-reconnect') {
      // invalid_grant may only mean we lost a race: if newer tokens were stored meanwhile, use them.
      const latest = await loadGrant(db, cipher, grant.userId);
      // Disconnected, or the account deleted, meanwhile: there is nothing left to mark, and nobody to tell.
      if (!latest) throw toServiceError(failure);
      if (latest.readable && latest.status === 'connected' && latest.refreshToken !== grant.refreshToken) return SUPERSEDED;
      await markNeedsReconnect(db, grant, attempt.refusal, clock());
      log.warn({ userId: grant.userId, failure, reason: attempt.refusal }, 'grant refused; the connection needs reconnecting');
      throw toServiceError(failure);
    }
    await releaseRefreshLease(db, grant.userId, leaseOwner);
    throw toServiceError(failure);
  }

  return {
    async accessTokenFor(userId) {
      const grant = await usableGrant(userId);
      // An interrupted refresh is recovered at once: a reuse grace period does not last.
      const refreshNow = refreshDue(grant) || refreshInterrupted(grant, clock());
      return refreshNow ? refreshSingleFlight(userId, refreshDue) : grant.accessToken;
    },

    async replaceRejected(userId, rejected) {
      // A caller whose answer came late may find the token stored since its own already due, or expired.
      const needsReplacing = (grant: StoredGrant) => grant.accessToken === rejected || refreshDue(grant);
      const token = await refreshSingleFlight(userId, needsReplacing);
      // A refresh already in flight may have been one that found no need to refresh.
      return token === rejected ? refreshSingleFlight(userId, needsReplacing) : token;
    },

    async keepAlive(userId) {
      await refreshSingleFlight(userId, (grant) => keepAliveDue(grant, clock()));
    },
  };
}
