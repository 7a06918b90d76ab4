import type { Db } from '../db/database.js';
import { endHistory, peopleInTurnOrder, standsInHead } from './history.js';
import { canTakeTurns, queueNextTurn, queueTurns, type SyncQueues, type TurnJob } from './queue.js';

/**
 * How many people at the head of the history rotation have a turn queued. The history lane does not
 * queue a turn for everyone with history waiting, only for the head of the rotation: the people
 * whose place (`histories.last_turn_at`) comes first. A turn that ends sends its person to the back
 * of the rotation; the sweeper tops the head up again, in the rotation's order, whenever fewer than
 * half of it wait in the queue. So turns go round everyone in the rotation's order, while what
 * Redis holds, and what a rebuild after a lost Redis queues, stays the same for ten people as for
 * 100,000. Many times the turns running at once (WORKER_CONCURRENCY a process), so the lane never
 * runs dry between two top-ups.
 */
export const HISTORY_WINDOW = 1000;

export interface RotationDependencies {
  db: Db;
  queues: SyncQueues;
  /** HISTORY_WINDOW unless a test asks for fewer. */
  window: number;
}

/**
 * A turn for each person at the head of the rotation, in its order, unless one is queued or running
 * already (it keeps its place). Idempotent, so processes that top the head up at the same moment
 * queue nobody twice. Returns how many people it found there.
 */
export async function queueRotationHead({ db, queues, window }: RotationDependencies): Promise<number> {
  const people = await peopleInTurnOrder(db, window);
  const ready = people.filter(canTakeTurns);
  // A user id no turn can be queued for (a hand edit) would stand first for ever.
  for (const userId of people) if (!canTakeTurns(userId)) await endHistory(db, userId);
  await queueTurns(queues, 'history', ready);
  return ready.length;
}

/**
 * The person's next history turn, after `delayMs`, if they stand at the head of the rotation: when
 * the whole rotation fits in it, their next turn is theirs to queue. Further back, the rotation
 * reaches them in its order (the sweeper's top-up), and queuing them now would put them ahead of
 * everyone between.
 */
export async function queueHistoryTurnIfAtHead(deps: RotationDependencies, job: TurnJob, delayMs = 0): Promise<void> {
  if (await standsInHead(deps.db, job.userId, deps.window)) await queueNextTurn(deps.queues, 'history', job, delayMs);
}
