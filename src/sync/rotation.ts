import type { Db } from '../db/database.js';
import { personAtPlace } from './history.js';
import { canTakeTurns, queueNextTurn, type SyncQueues, type TurnJob } from './queue.js';
import type { TurnNext } from './turn.js';

/**
 * How many people at the head of the history rotation have a turn queued. The history lane does not
 * queue a turn for everyone with history waiting, only for this window: the people whose last turn
 * is longest ago (`histories`, in turn order). When a turn ends, its person goes to the back of the
 * rotation (recordTurn) and whoever now stands last in the window gets a turn queued: the window
 * moves on by one, and the turns still go round everyone in the rotation's order. So what Redis
 * holds, and what a rebuild after Redis lost it queues, stays the same however many people wait
 * (100,000 at a launch), where a turn per person would cost memory and a rebuild of seconds for
 * each 10,000. It is many times the turns running at once (WORKER_CONCURRENCY a process), so the
 * lane never runs dry while the window moves on.
 */
export const HISTORY_WINDOW = 1000;

export interface RotationDependencies {
  db: Db;
  queues: SyncQueues;
  /** HISTORY_WINDOW unless a test asks for fewer. */
  window: number;
}

/**
 * After a person's history turn: the window moves on to whoever now stands last in it (queued
 * unless their turn is already), and the person's own next turn is queued only when they come
 * back before the window reaches them again: a retry after its backoff, or any next turn when the
 * whole rotation fits in the window. Two turns that end at the same moment may both find the same
 * person last; the window is then one short until the sweeper fills it again.
 */
export async function moveRotationOn({ db, queues, window }: RotationDependencies, job: TurnJob, next: TurnNext): Promise<void> {
  const lastInWindow = await personAtPlace(db, window);
  const rotationFits = lastInWindow === undefined || lastInWindow === job.userId;
  if (next.next === 'retry') await queueNextTurn(queues, 'history', { userId: job.userId, failures: job.failures + 1 }, next.afterMs);
  if (next.next === 'again' && rotationFits) await queueNextTurn(queues, 'history', { userId: job.userId, failures: 0 }, next.afterMs);
  // A user id no turn can be queued for (a hand edit) is the sweeper's to end.
  if (!rotationFits && canTakeTurns(lastInWindow)) await queueNextTurn(queues, 'history', { userId: lastInWindow, failures: 0 });
}
