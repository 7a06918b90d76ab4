import type { Logger } from '../logger.js';
import { queueFirstHistoryTurn, type SyncQueues } from './queue.js';

/**
 * Told after commit that a person's history grew (an import), and whether it began with it (none
 * was under way); a hint only, so it never throws.
 */
export type HistoryHint = (userId: number, history: { began: boolean }) => Promise<void>;

/**
 * Queues the first turn of a history that begins ahead of everyone's waiting, rather than leaving
 * it to the sweeper, so that whoever has just connected and imported sees their first days arrive
 * within seconds however many people wait (docs/architecture.md, "Who waits"); from then on they go
 * round the rotation like everyone. A history already under way keeps its place in the rotation:
 * growing it earns no turn. Only a hint: the history is in the store already, and if Redis is
 * unreachable the sweeper queues the turn later, so a failure here is logged, never passed on to
 * the person who imported.
 */
export function createHistoryHint(queues: SyncQueues, logger: Logger): HistoryHint {
  return async (userId, { began }) => {
    if (!began) return;
    try {
      await queueFirstHistoryTurn(queues, userId);
    } catch (error) {
      logger.warn({ err: error, userId }, 'could not queue the history turn; the sweeper will');
    }
  };
}
