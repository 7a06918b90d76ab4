import type { Transaction } from 'kysely';
import { lockUser } from '../accounts/user.repository.js';
import type { Database, Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { endHistory } from './history.js';
import { moveToHistory } from './outbox.js';
import { queueNextTurn, removeQueuedTurns, type SyncQueues } from './queue.js';

export interface ConnectionChangeDependencies {
  db: Db;
  queues: SyncQueues;
  logger: Logger;
}

/**
 * In the transaction that stores a new grant (Connect or Reconnect): all that waited of the
 * person's (logged before Connect, or while the connection needed them) becomes a history that
 * begins now, sent in their turns. Returns whether anything waits; if so, queue the first turn
 * after the commit.
 */
export async function startHistoryOnConnect(trx: Transaction<Database>, userId: number, now: Date): Promise<boolean> {
  await lockUser(trx, userId);
  await endHistory(trx, userId);
  return moveToHistory(trx, userId, now);
}

/** After the commit: the first history turn at once, not at the next sweep (a hint: the sweeper is the guarantee). */
export async function queueFirstHistoryTurn({ queues, logger }: ConnectionChangeDependencies, userId: number): Promise<void> {
  await queueNextTurn(queues, 'history', { userId, failures: 0 }).catch((error: unknown) =>
    logger.warn({ err: error, userId }, 'could not queue the history turn; the sweeper will'),
  );
}

/** After Disconnect: nothing queued for the person runs. Their entries wait for a later Connect. */
export async function dropQueuedEntries({ db, queues, logger }: ConnectionChangeDependencies, userId: number): Promise<void> {
  await endHistory(db, userId);
  await removeQueuedTurns(queues, userId).catch((error: unknown) =>
    logger.warn({ err: error, userId }, 'could not drop queued turns; they will find no connection and end'),
  );
}
