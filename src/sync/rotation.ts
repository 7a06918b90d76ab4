import type { Db } from '../db/database.js';
import { endHistory, peopleInTurnOrder } from './history.js';
import { canTakeTurns, queueTurns, type SyncQueues } from './queue.js';

/**
 * How many people at the head of the history rotation have a turn queued. The history lane does not
 * queue a turn for everyone with history waiting, only for the head of the rotation: the people
 * whose place (`histories.last_turn_at`) comes first. A turn that ends sends its person to the back
 * of the rotation; the sweeper tops the head up again, in the rotation's order, whenever fewer than
 * half of it wait in the queue. So turns go round everyone in the rotation's order, while what
 * Redis holds, and what a rebuild after a lost Redis queues, stays the same for ten people as for
 * 100,000. The lane runs dry only if more than half of the head ends its turns between two looks
 * of the sweeper (each process looks every second): 500 turns a second. It also bounds the turns
 * running at once, since a person keeps their place at the head while their turn runs.
 */
export const ROTATION_HEAD_SIZE = 1000;

/**
 * What a process's last look at the head of the rotation found, shared by its sweeper, which looks,
 * and its history turns. While everyone with history waiting fits in the head, a turn that ends
 * queues its person's next one itself, at the back of the lane, as the rotation would; once more
 * wait, the person's next turn is the sweeper's to queue when the rotation reaches them, and
 * queuing it now would put them ahead of everyone between.
 */
export interface RotationHead {
  everyoneFits: boolean;
}

export interface RotationDependencies {
  db: Db;
  queues: SyncQueues;
  /** ROTATION_HEAD_SIZE unless a test asks for fewer. */
  headSize: number;
  head: RotationHead;
}

/** Before the first look: as if few waited, since the first look comes within a second. */
export function rotationHead(): RotationHead {
  return { everyoneFits: true };
}

/**
 * A turn for each person at the head of the rotation, in its order, unless one is queued or running
 * already (it keeps its place). Idempotent, so processes that top the head up at the same moment
 * queue nobody twice. Returns how many people it found there.
 */
export async function queueRotationHead({ db, queues, headSize, head }: RotationDependencies): Promise<number> {
  const people = await peopleInTurnOrder(db, headSize);
  head.everyoneFits = people.length < headSize;
  const ready = people.filter(canTakeTurns);
  // A user id no turn can be queued for (a hand edit) would stand first for ever.
  for (const userId of people) if (!canTakeTurns(userId)) await endHistory(db, userId);
  await queueTurns(queues, 'history', ready);
  return ready.length;
}
