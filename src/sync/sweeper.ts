import type { Queue } from 'bullmq';
import { dirtyEntriesOfConnectedUsers } from './outbox.js';
import { enqueueSweptEntries } from './queue.js';
import { SYNC_KINDS } from './sync-kinds.js';
import { setAsideUnsendableEntries, type OutboxLoopDependencies } from './unsendable-entries.js';

/** How many entries of each kind one sweep enqueues at most; the rest wait for the next sweep. */
const SWEEP_BATCH = 1000;

export interface SweepDependencies extends OutboxLoopDependencies {
  queue: Queue;
}

/**
 * The guarantee behind the hints: every dirty entry of a connected user gets a job, even when the
 * enqueue after its change was lost (Redis down, process killed). Entries already queued are left
 * as they are; entries that can never be sent are marked failed. Returns how many it looked at.
 */
export async function sweepDirtyEntries(deps: SweepDependencies): Promise<number> {
  let seen = 0;
  for (const kind of SYNC_KINDS) {
    const dirty = await dirtyEntriesOfConnectedUsers(deps.db, kind, SWEEP_BATCH);
    await enqueueSweptEntries(deps.queue, await setAsideUnsendableEntries(deps, dirty));
    seen += dirty.length;
  }
  return seen;
}
