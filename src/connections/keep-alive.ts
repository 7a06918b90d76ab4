import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { AccessTokens } from './access-token.js';
import { keepAliveDue } from './connection-health.js';
import { connectedConnections } from './connection.repository.js';

/**
 * The repeating job that refreshes connections nobody used for a long time, so their refresh
 * tokens never lapse unnoticed, and settles their interrupted refreshes (keepAliveDue). Each refresh goes through AccessTokens like any other (single
 * flight, compare-and-swap); one user's failure does not stop the others. Returns how many it refreshed.
 */
export async function keepConnectionsAlive(db: Db, accessTokens: AccessTokens, clock: () => Date, logger: Logger): Promise<number> {
  const due = (await connectedConnections(db)).filter((connection) => keepAliveDue(connection, clock()));
  let refreshed = 0;
  for (const { userId } of due) {
    try {
      await accessTokens.keepAlive(userId);
      refreshed += 1;
    } catch (error) {
      logger.warn({ err: error, userId }, 'keep-alive refresh failed; the next run tries again');
    }
  }
  return refreshed;
}
