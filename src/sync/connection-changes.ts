import type { Queue } from 'bullmq';
import { dirtyDaysOf, type DayKey } from './outbox.js';
import { enqueueSweptDay, removeQueuedDays } from './queue.js';
import { setAsideUnsendableDays, type OutboxLoopDependencies } from './unsendable-days.js';

export interface ConnectionChangeDependencies extends OutboxLoopDependencies {
  queue: Queue;
}

/** After Connect or Reconnect: the user's waiting days go to the queue at once, not at the next sweep. */
export async function resumeWaitingDays(deps: ConnectionChangeDependencies, userId: number): Promise<void> {
  for (const day of await sendableDaysOf(deps, userId)) await enqueueSweptDay(deps.queue, day);
}

/** After Disconnect: nothing queued for the user runs. Their days stay dirty for a later Connect. */
export async function dropQueuedDays(deps: ConnectionChangeDependencies, userId: number): Promise<void> {
  await removeQueuedDays(deps.queue, await sendableDaysOf(deps, userId));
}

async function sendableDaysOf(deps: ConnectionChangeDependencies, userId: number): Promise<DayKey[]> {
  return setAsideUnsendableDays(deps, await dirtyDaysOf(deps.db, userId));
}
