import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { queueFirstHistoryTurn, type SyncQueues } from './queue.js';
import { HISTORY_WINDOW, queueHistoryTurnIfAtHead } from './rotation.js';

/**
 * Told after commit that a person's history grew (an import), and whether it began with it (none
 * was under way); a hint only, so it never throws.
 */
export type HistoryHint = (userId: number, history: { began: boolean }) => Promise<void>;

/**
 * Queues the person's history turn at once rather than at the sweeper's next top-up. A history
 * that begins gets its first turn ahead of everyone's waiting, so that whoever has just connected
 * and imported sees their first days arrive within seconds however many people wait
 * (docs/architecture.md, "Who waits"); from then on they go round the rotation like everyone. A
 * history already under way keeps its place in the rotation. Only a hint: the history is in the
 * store already, and if Redis is unreachable the sweeper queues the turn later, so a failure here
 * is logged, never passed on to the person who imported.
 */
export function createHistoryHint(db: Db, queues: SyncQueues, logger: Logger, window = HISTORY_WINDOW): HistoryHint {
  return async (userId, { began }) => {
    try {
      if (began) await queueFirstHistoryTurn(queues, userId);
      else await queueHistoryTurnIfAtHead({ db, queues, window }, { userId, failures: 0 });
    } catch (error) {
      logger.warn({ err: error, userId }, 'could not queue the history turn; the sweeper will');
    }
  };
}
