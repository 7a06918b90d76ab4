import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { enqueueChangedDay } from './queue.js';
import type { DayKey } from './outbox.js';

/**
 * Tells the queue that days changed, after their change committed. Only a hint: if Redis is
 * unreachable the change is still marked dirty in the store and the sweeper enqueues it later,
 * so a failure here is logged, never passed on to the person who made the change.
 */
export function createDayChangeHint(queue: Queue, quietMs: number, logger: Logger) {
  return async (days: DayKey[]): Promise<void> => {
    try {
      await Promise.all(days.map((day) => enqueueChangedDay(queue, day, quietMs)));
    } catch (error) {
      logger.warn({ err: error, days }, 'could not enqueue changed days; the sweeper will');
    }
  };
}
