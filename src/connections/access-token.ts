import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import { createOAuthClient, type OAuthClient } from '../provider/oauth.js';
import { ServiceError } from '../provider/service-error.js';
import { classifyTokenRequestError, toServiceError, type TokenRequestFailure } from '../provider/token-errors.js';
import type { TokenSet } from '../provider/token-set.js';
import { withRedisLock } from '../queue/redis-lock.js';
import { keepAliveDue } from './connection-health.js';
import {
  UNREADABLE_TOKENS,
  loadGrant,
  markNeedsReconnect,
  storeRefreshedTokens,
  type ReadState,
  type StoredGrant,
} from './connection.repository.js';
import type { StatusReason } from './connection.table.js';
import { createTokenCipher, type TokenCipher } from './token-crypto.js';

/**
 * The only way any code gets an access token for a user, and the only place that refreshes.
 *
 * Refresh tokens may rotate on every refresh (sections 5 and 9), and a rotated-out token
 * presented again can make a strict service revoke the whole grant. So refreshes are single
 * flight: one per user within this process (callers share the promise) and across all
 * processes (a Redis lock per user, after which the stored tokens are read again, since
 * another process may have refreshed meanwhile). The new tokens are stored in one
 * compare-and-swap write before the new access token is handed out.
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
  redis: Redis;
  redisPrefix: string;
  /** Refresh this long before expiry; tokens living under twice this refresh at half their life. */
  refreshMarginS: number;
  /** The token request timeout, which bounds how long a refresh holds the lock. */
  tokenRequestTimeoutS: number;
  clock: () => Date;
  logger: Logger;
  metrics: Metrics;
}

/**
 * When a refresh got no answer at all (timeout, reset), the service may still have rotated the
 * token. Presenting the same token again at once is the only recovery the protocol allows, and
 * succeeds when the service grants a reuse grace period; otherwise it ends in needs-reconnect.
 */
const RETRIES_WITHOUT_ANSWER = 1;

/** AccessTokens as a process builds them from its settings (worker.ts and the tests' processes). */
export function accessTokensFromConfig(
  config: Config,
  parts: Pick<AccessTokenDependencies, 'db' | 'redis' | 'clock' | 'logger' | 'metrics'>,
): AccessTokens {
  return createAccessTokens({
    ...parts,
    cipher: createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys),
    oauth: createOAuthClient(config.athlete, parts.clock),
    redisPrefix: config.redis.prefix,
    refreshMarginS: config.tokenRefreshMarginS,
    tokenRequestTimeoutS: config.athlete.timeoutS,
  });
}

export function createAccessTokens(deps: AccessTokenDependencies): AccessTokens {
  const { db, cipher, oauth, redis, redisPrefix, clock } = deps;
  const log = deps.logger.child({ module: 'access-token' });
  const lockTtlMs = ((RETRIES_WITHOUT_ANSWER + 1) * deps.tokenRequestTimeoutS + 5) * 1000;
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
    if (!grant.readable) {
      const problem = UNREADABLE_TOKENS[grant.unreadable];
      log.warn({ userId, tokenKeyId: grant.tokenKeyId }, `${problem}; the connection needs reconnecting`);
      return needsReconnect(grant, grant.unreadable, problem);
    }
    if (grant.refreshExpiresAt && grant.refreshExpiresAt <= clock()) {
      return needsReconnect(grant, 'refresh_token_expired', 'the refresh token has expired');
    }
    return grant;
  }

  /** Marks the connection (unless it changed meanwhile) and stops the work that needed a token: it waits. */
  async function needsReconnect(read: ReadState, reason: StatusReason, message: string): Promise<never> {
    await markNeedsReconnect(db, read, reason, clock());
    throw new ServiceError('needs-reconnect', message);
  }

  function refreshSingleFlight(userId: number, stillNeeded: (grant: StoredGrant) => boolean): Promise<string> {
    const running = inFlight.get(userId);
    if (running) return running;
    const refresh = withRedisLock(
      redis,
      `${redisPrefix}:lock:refresh:${userId}`,
      { ttlMs: lockTtlMs, waitMs: lockTtlMs + 5000 },
      async () => {
        const grant = await usableGrant(userId);
        return stillNeeded(grant) ? refreshGrant(grant, RETRIES_WITHOUT_ANSWER) : grant.accessToken;
      },
    ).finally(() => inFlight.delete(userId));
    inFlight.set(userId, refresh);
    return refresh;
  }

  async function refreshGrant(grant: StoredGrant, retriesWithoutAnswer: number): Promise<string> {
    let tokens: TokenSet;
    try {
      tokens = await oauth.refresh(grant.refreshToken, grant.scopes);
    } catch (error) {
      const failure = classifyTokenRequestError(error);
      deps.metrics.tokenRefreshed(failure.kind);
      return recoverFromFailedRefresh(grant, failure, retriesWithoutAnswer);
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
    // Newer tokens were stored meanwhile (a reconnect, or a process whose lock had timed out): they win.
    return (await usableGrant(grant.userId)).accessToken;
  }

  async function recoverFromFailedRefresh(
    grant: StoredGrant,
    failure: TokenRequestFailure,
    retriesWithoutAnswer: number,
  ): Promise<string> {
    if (failure.kind === 'retryable' && failure.status === undefined && retriesWithoutAnswer > 0) {
      log.warn({ userId: grant.userId, failure }, 'refresh got no answer; presenting the same token again');
      return refreshGrant(grant, retriesWithoutAnswer - 1);
    }
    if (failure.kind === 'needs-reconnect') {
      // invalid_grant may only mean we lost a race: if newer tokens were stored meanwhile, use them.
      const latest = await loadGrant(db, cipher, grant.userId);
      if (latest?.readable && latest.status === 'connected' && latest.refreshToken !== grant.refreshToken) {
        return refreshDue(latest) ? refreshGrant(latest, 0) : latest.accessToken;
      }
      await markNeedsReconnect(db, grant, 'grant_revoked', clock());
      log.warn({ userId: grant.userId, failure }, 'grant refused; the connection needs reconnecting');
    }
    throw toServiceError(failure);
  }

  return {
    async accessTokenFor(userId) {
      const grant = await usableGrant(userId);
      return refreshDue(grant) ? refreshSingleFlight(userId, refreshDue) : grant.accessToken;
    },

    async replaceRejected(userId, rejected) {
      const isRejected = (grant: StoredGrant) => grant.accessToken === rejected;
      const token = await refreshSingleFlight(userId, isRejected);
      // A refresh already in flight may have been one that found no need to refresh.
      return token === rejected ? refreshSingleFlight(userId, isRejected) : token;
    },

    async keepAlive(userId) {
      await refreshSingleFlight(userId, (grant) => keepAliveDue(grant, clock()));
    },
  };
}
