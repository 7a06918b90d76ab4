import type { Queue } from 'bullmq';
import type { Db } from '../db/database.js';
import { dirtyDaysOf } from './outbox.js';
import { enqueueSweptDay, removeQueuedDays } from './queue.js';

/** After Connect or Reconnect: the user's waiting days go to the queue at once, not at the next sweep. */
export async function resumeWaitingDays(db: Db, queue: Queue, userId: number): Promise<void> {
  for (const day of await dirtyDaysOf(db, userId)) await enqueueSweptDay(queue, day);
}

/** After Disconnect: nothing queued for the user runs. Their days stay dirty for a later Connect. */
export async function dropQueuedDays(db: Db, queue: Queue, userId: number): Promise<void> {
  await removeQueuedDays(queue, await dirtyDaysOf(db, userId));
}
