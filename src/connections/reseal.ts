import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { UNREADABLE_TOKENS, connectionUserIds, loadGrant, markNeedsReconnect, storeResealedTokens } from './connection.repository.js';
import type { TokenCipher } from './token-crypto.js';

export interface ResealSummary {
  resealed: number;
  alreadyCurrent: number;
  /** By key id: connections sealed with a key not configured here, left as they are. */
  keyNotConfigured: Record<string, number>;
  /** Damaged, or sealed with a key declared gone: these connections now need reconnecting. */
  unreadable: number;
}

type ResealOutcome = 'resealed' | 'alreadyCurrent' | 'unreadable' | 'disconnected' | { keyNotConfigured: string };

export interface ResealOptions {
  /**
   * Ids of keys the operator declared gone for good (`--forget-key`): the connections sealed with
   * them are marked as needing a reconnect. Without it, nothing here tells a key dropped from the
   * settings from a newer one this run was not given, so such connections are left as they are.
   */
  forgottenKeyIds: ReadonlySet<string>;
}

/**
 * `npm run reseal`: seals every stored token again under the current TOKEN_ENCRYPTION_KEY, so the
 * keys in TOKEN_ENCRYPTION_PREVIOUS_KEYS can be dropped once it finds nothing left to reseal.
 * Safe at any point of a rolling restart: each write is a compare-and-swap (storeResealedTokens),
 * and a process still on an older key waits on the tokens it can no longer open (access-token.ts).
 */
export async function resealAllTokens(
  db: Db,
  cipher: TokenCipher,
  clock: () => Date,
  logger: Logger,
  { forgottenKeyIds }: ResealOptions = { forgottenKeyIds: new Set() },
): Promise<ResealSummary> {
  const log = logger.child({ module: 'reseal' });
  const summary: ResealSummary = { resealed: 0, alreadyCurrent: 0, keyNotConfigured: {}, unreadable: 0 };

  async function reseal(userId: number): Promise<ResealOutcome> {
    const grant = await loadGrant(db, cipher, userId);
    if (!grant) return 'disconnected';
    if (!grant.readable) {
      const logged = { userId, tokenKeyId: grant.tokenKeyId };
      if (grant.unreadable === 'key_missing' && !forgottenKeyIds.has(grant.tokenKeyId)) {
        log.warn(logged, `${UNREADABLE_TOKENS.key_missing}; left as it is`);
        return { keyNotConfigured: grant.tokenKeyId };
      }
      const [reason, problem] =
        grant.unreadable === 'damaged'
          ? (['tokens_damaged', UNREADABLE_TOKENS.damaged] as const)
          : (['token_key_removed', 'the stored tokens are sealed with a key declared gone (--forget-key)'] as const);
      // One already waiting for a reconnect keeps the reason it has.
      if (grant.status === 'connected') await markNeedsReconnect(db, grant, reason, clock());
      log.warn(logged, `${problem}; the connection needs reconnecting`);
      return 'unreadable';
    }
    if (grant.tokenKeyId === cipher.currentKeyId) return 'alreadyCurrent';
    // Lost the compare-and-swap: the row was written meanwhile (a refresh, a reconnect); read it again.
    return (await storeResealedTokens(db, cipher, grant, clock())) ? 'resealed' : reseal(userId);
  }

  for (const userId of await connectionUserIds(db)) {
    const outcome = await reseal(userId);
    if (typeof outcome === 'object') {
      const keyId = outcome.keyNotConfigured;
      summary.keyNotConfigured[keyId] = (summary.keyNotConfigured[keyId] ?? 0) + 1;
    } else if (outcome !== 'disconnected') {
      summary[outcome] += 1;
    }
  }
  return summary;
}
