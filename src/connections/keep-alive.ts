import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { noteGrantsExpiringSoon } from '../notices/expiring-grants.js';
import { ServiceError } from '../provider/service-error.js';
import type { AccessTokens } from './access-token.js';
import { keepAliveDue } from './connection-health.js';
import { connectedConnections } from './connection.repository.js';

/**
 * The repeating job that refreshes connections nobody used for a long time, so their refresh
 * tokens never lapse unnoticed, and settles their interrupted refreshes (keepAliveDue). Each refresh goes through AccessTokens like any other (single
 * flight, compare-and-swap); one user's failure does not stop the others. Returns how many it refreshed.
 * It also notes the grants whose refresh token will expire within a week, for a mail to the person.
 */
export async function keepConnectionsAlive(db: Db, accessTokens: AccessTokens, clock: () => Date, logger: Logger): Promise<number> {
  const connected = await connectedConnections(db);
  await noteGrantsExpiringSoon(db, connected, clock());
  const due = connected.filter((connection) => keepAliveDue(connection, clock()));
  let refreshed = 0;
  for (const { userId } of due) {
    try {
      await accessTokens.keepAlive(userId);
      refreshed += 1;
    } catch (error) {
      // Refused for good, disconnected or deleted meanwhile: the connection's row says so, if it still exists.
      if (error instanceof ServiceError && error.kind === 'needs-reconnect') continue;
      logger.warn({ err: error, userId }, 'keep-alive refresh failed; the next run tries again');
    }
  }
  return refreshed;
}
