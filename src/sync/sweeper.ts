import type { Queue } from 'bullmq';
import type { Db } from '../db/database.js';
import { dirtyDaysOfConnectedUsers } from './outbox.js';
import { enqueueSweptDay } from './queue.js';

/** How many days one sweep enqueues at most; the rest wait for the next sweep. */
const SWEEP_BATCH = 1000;

/**
 * The guarantee behind the hints: every dirty day of a connected user gets a job, even when the
 * enqueue after its change was lost (Redis down, process killed). Days already queued are left
 * as they are. Returns how many days it looked at.
 */
export async function sweepDirtyDays(db: Db, queue: Queue): Promise<number> {
  const days = await dirtyDaysOfConnectedUsers(db, 'nutrition', SWEEP_BATCH);
  for (const day of days) await enqueueSweptDay(queue, day);
  return days.length;
}
