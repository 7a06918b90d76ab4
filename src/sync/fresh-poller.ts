import type { Db } from '../db/database.js';
import { leaveFreshLane } from './outbox.js';
import { nextFreshChangeAfter, peopleWithFreshChangesDue } from './lanes.js';
import { canTakeTurns, queueTurns, type SyncQueues } from './queue.js';

/**
 * How often, at least, each worker process looks for fresh changes whose quiet period has passed;
 * it looks again sooner, at the moment the next change it knows of falls due.
 */
export const FRESH_POLL_MS = 250;
/** People handed to the fresh lane per look; more wait for the next, a quarter of a second later. */
const FRESH_POLL_BATCH = 1000;

export interface FreshPollDependencies {
  db: Db;
  queues: SyncQueues;
  clock: () => Date;
  /** SYNC_QUIET_MS: a burst of edits to an entry is sent once, this long after its last edit (debounce). */
  quietMs: number;
}

/**
 * The fresh lane's source: the store, not a message from the web. A change marks its entry fresh in
 * its own transaction (outbox.ts); once the person has left it alone for the quiet period, this
 * gives them a fresh turn. A person who is not connected cannot be synced now: their changes
 * become history, sent once they connect; so do the changes of a user id no turn can be queued for
 * (a hand edit), which would otherwise come back at every look.
 */
export async function queueFreshTurns({ db, queues, clock, quietMs }: FreshPollDependencies): Promise<FreshPoll> {
  const now = clock();
  const dueBefore = new Date(now.getTime() - quietMs);
  // A person whose turn backs off after a failure has it queued already, for when the retry is due.
  const people = await peopleWithFreshChangesDue(db, dueBefore, now, FRESH_POLL_BATCH);
  const ready = people.filter((person) => person.connected && canTakeTurns(person.userId)).map((person) => person.userId);
  for (const { userId } of people) if (!ready.includes(userId)) await leaveFreshLane(db, userId, { changedBefore: dueBefore });
  await queueTurns(queues, 'fresh', ready);
  const next = await nextFreshChangeAfter(db, dueBefore);
  return { queued: ready.length, nextDueInMs: next && next.getTime() + quietMs - clock().getTime() };
}

export interface FreshPoll {
  /** How many people got a turn. */
  queued: number;
  /** When the next change known of falls due, in ms from now: when to look again. */
  nextDueInMs: number | undefined;
}
