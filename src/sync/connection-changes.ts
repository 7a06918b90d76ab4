import type { Queue } from 'bullmq';
import { dirtyEntriesOf, type OutboxKey } from './outbox.js';
import { enqueueSweptEntries, removeQueuedEntries } from './queue.js';
import { setAsideUnsendableEntries, type OutboxLoopDependencies } from './unsendable-entries.js';

export interface ConnectionChangeDependencies extends OutboxLoopDependencies {
  queue: Queue;
}

/** After Connect or Reconnect: the user's waiting entries go to the queue at once, not at the next sweep. */
export async function resumeWaitingEntries(deps: ConnectionChangeDependencies, userId: number): Promise<void> {
  await enqueueSweptEntries(deps.queue, await sendableEntriesOf(deps, userId));
}

/** After Disconnect: nothing queued for the user runs. Their entries stay dirty for a later Connect. */
export async function dropQueuedEntries(deps: ConnectionChangeDependencies, userId: number): Promise<void> {
  await removeQueuedEntries(deps.queue, await sendableEntriesOf(deps, userId));
}

async function sendableEntriesOf(deps: ConnectionChangeDependencies, userId: number): Promise<OutboxKey[]> {
  return setAsideUnsendableEntries(deps, await dirtyEntriesOf(deps.db, userId));
}
