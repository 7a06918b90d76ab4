import type { Queue } from 'bullmq';
import { dirtyDaysOfConnectedUsers } from './outbox.js';
import { enqueueSweptDay } from './queue.js';
import { setAsideUnsendableDays, type OutboxLoopDependencies } from './unsendable-days.js';

/** How many days one sweep enqueues at most; the rest wait for the next sweep. */
const SWEEP_BATCH = 1000;

export interface SweepDependencies extends OutboxLoopDependencies {
  queue: Queue;
}

/**
 * The guarantee behind the hints: every dirty day of a connected user gets a job, even when the
 * enqueue after its change was lost (Redis down, process killed). Days already queued are left
 * as they are; days that can never be sent are marked failed. Returns how many days it looked at.
 */
export async function sweepDirtyDays(deps: SweepDependencies): Promise<number> {
  const dirty = await dirtyDaysOfConnectedUsers(deps.db, 'nutrition', SWEEP_BATCH);
  for (const day of await setAsideUnsendableDays(deps, dirty)) await enqueueSweptDay(deps.queue, day);
  return dirty.length;
}
