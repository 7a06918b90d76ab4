import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { noteGrantsExpiringSoon } from '../notices/expiring-grants.js';
import { ServiceError } from '../provider/service-error.js';
import type { AccessTokens } from './access-token.js';
import { keepAliveDue } from './connection-health.js';
import { connectedConnectionsAfter, type KeepAliveView } from './connection.repository.js';

/**
 * Connections read per page: what the keep-alive holds at once, whatever the number of people
 * (100,000 connections read whole, their sealed tokens included, took 125 MB).
 */
export const KEEP_ALIVE_BATCH = 500;

/**
 * The repeating job that refreshes connections nobody used for a long time, so their refresh
 * tokens never lapse unnoticed, and settles their interrupted refreshes (keepAliveDue). It reads
 * the connected connections a page of `batchSize` at a time, in the order of their user ids, and
 * deals with each page before it reads the next. Each refresh goes through AccessTokens like any
 * other (single flight, compare-and-swap); one user's failure does not stop the others. Returns how
 * many it refreshed. It also notes the grants whose refresh token will expire within a week, for a
 * mail to the person.
 */
export async function keepConnectionsAlive(
  db: Db,
  accessTokens: AccessTokens,
  clock: () => Date,
  logger: Logger,
  batchSize = KEEP_ALIVE_BATCH,
): Promise<number> {
  let refreshed = 0;
  for (let afterUserId = 0; ;) {
    const page = await connectedConnectionsAfter(db, afterUserId, batchSize);
    refreshed += await keepPageAlive(db, page, accessTokens, clock, logger);
    if (page.length < batchSize) return refreshed;
    afterUserId = page.at(-1)!.userId;
  }
}

async function keepPageAlive(
  db: Db,
  page: KeepAliveView[],
  accessTokens: AccessTokens,
  clock: () => Date,
  logger: Logger,
): Promise<number> {
  await noteGrantsExpiringSoon(db, page, clock());
  let refreshed = 0;
  for (const { userId } of page.filter((connection) => keepAliveDue(connection, clock()))) {
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
