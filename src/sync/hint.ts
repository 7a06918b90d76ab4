import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import type { OutboxKey } from './outbox.js';
import { enqueueChangedEntry } from './queue.js';

/** Told after commit which outbox entries changed; a hint only, so it never throws. */
export type ChangeHint = (keys: OutboxKey[]) => Promise<void>;

/**
 * Tells the queue that entries changed, after their change committed. Only a hint: if Redis is
 * unreachable the change is still marked dirty in the store and the sweeper enqueues it later,
 * so a failure here is logged, never passed on to the person who made the change.
 */
export function createChangeHint(queue: Queue, quietMs: number, logger: Logger): ChangeHint {
  return async (keys) => {
    try {
      await Promise.all(keys.map((key) => enqueueChangedEntry(queue, key, quietMs)));
    } catch (error) {
      logger.warn({ err: error, entries: keys }, 'could not enqueue changed entries; the sweeper will');
    }
  };
}
