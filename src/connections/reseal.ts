import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { UNREADABLE_TOKENS, connectionUserIds, loadGrant, markNeedsReconnect, storeResealedTokens } from './connection.repository.js';
import type { TokenCipher } from './token-crypto.js';

export interface ResealSummary {
  resealed: number;
  alreadyCurrent: number;
  /** Sealed under a key no longer configured, or damaged: these connections now need reconnecting. */
  unreadable: number;
}

type ResealOutcome = keyof ResealSummary | 'disconnected';

/**
 * `npm run reseal`: seals every stored token again under the current TOKEN_ENCRYPTION_KEY, so the
 * keys in TOKEN_ENCRYPTION_PREVIOUS_KEYS can be dropped once it finds nothing left to reseal.
 * Safe beside running workers: each write is a compare-and-swap (storeResealedTokens).
 */
export async function resealAllTokens(db: Db, cipher: TokenCipher, clock: () => Date, logger: Logger): Promise<ResealSummary> {
  const log = logger.child({ module: 'reseal' });
  const summary: ResealSummary = { resealed: 0, alreadyCurrent: 0, unreadable: 0 };

  async function reseal(userId: number): Promise<ResealOutcome> {
    const grant = await loadGrant(db, cipher, userId);
    if (!grant) return 'disconnected';
    if (!grant.readable) {
      // One already waiting for a reconnect keeps the reason it has.
      if (grant.status === 'connected') await markNeedsReconnect(db, grant, grant.unreadable, clock());
      log.warn({ userId, tokenKeyId: grant.tokenKeyId }, `${UNREADABLE_TOKENS[grant.unreadable]}; the connection needs reconnecting`);
      return 'unreadable';
    }
    if (grant.tokenKeyId === cipher.currentKeyId) return 'alreadyCurrent';
    // Lost the compare-and-swap: the row was written meanwhile (a refresh, a reconnect); read it again.
    return (await storeResealedTokens(db, cipher, grant, clock())) ? 'resealed' : reseal(userId);
  }

  for (const userId of await connectionUserIds(db)) {
    const outcome = await reseal(userId);
    if (outcome !== 'disconnected') summary[outcome] += 1;
  }
  return summary;
}
