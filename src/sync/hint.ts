import type { Logger } from '../logger.js';
import { queueNextTurn, type SyncQueues } from './queue.js';

/** Told after commit that a person's history grew (an import); a hint only, so it never throws. */
export type HistoryHint = (userId: number) => Promise<void>;

/**
 * Queues the person's history turn at once rather than at the next sweep. Only a hint: the history
 * is in the store already, and if Redis is unreachable the sweeper queues the turn later, so a
 * failure here is logged, never passed on to the person who imported.
 */
export function createHistoryHint(queues: SyncQueues, logger: Logger): HistoryHint {
  return async (userId) => {
    try {
      await queueNextTurn(queues, 'backfill', { userId, failures: 0 });
    } catch (error) {
      logger.warn({ err: error, userId }, 'could not queue the history turn; the sweeper will');
    }
  };
}
