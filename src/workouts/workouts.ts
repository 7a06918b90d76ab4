import { lockSignedInUser } from '../accounts/user.repository.js';
import { findConnection, type Connection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import type { Scope } from '../provider/scopes.js';
import type { ServiceError } from '../provider/service-error.js';
import type { RequestBudget } from '../budget/request-budget.js';
import { keepLastWorkoutList, lastWorkoutList, type LastWorkoutList } from './last-workout-list.repository.js';
import type { WorkoutReadLimits } from './read-limits.js';
import { READ_RETRY_POLICY, readWithRetries } from './read-with-retries.js';
import { readWorkoutListing, type WorkoutListing } from './workout-listing.js';
import { fetchWorkoutList } from './workouts.service.js';

export interface WorkoutsDependencies {
  db: Db;
  api: ServiceApi;
  /** The requests to the service that every process shares; a person looking at a page reads in its read lane. */
  budget: RequestBudget;
  /** How often a person's list asks the service: a recent list is answered again, and each person has a rate. */
  reads: WorkoutReadLimits;
  clock: () => Date;
}

/**
 * What listing a person's workouts came to. A list with when it was fetched: from the service now
 * or within the last few seconds, or else the last one fetched (`stale`), because the service does
 * not answer (`no-answer`) or the person has asked too often (`too-many-reads`). Else
 * `not-connected` and `reconnect`: only the person can fix it, by connecting (again) and granting the
 * scope; `unavailable`: try again in a moment (no list is known); `too-many-reads`: try again after
 * `retryAfterS` (no list is known); `refused`: the service said no, in its words.
 */
export type WorkoutsOutcome =
  | ({ ok: true; fetchedAt: Date } & ({ stale: false } | { stale: true; staleReason: StaleReason }) & WorkoutListing)
  | { ok: false; reason: WorkoutsFailure; message: string; retryAfterS?: number };

export type StaleReason = 'no-answer' | 'too-many-reads';

export type WorkoutsFailure = 'not-connected' | 'reconnect' | 'unavailable' | 'too-many-reads' | 'refused';

/** What reading a person's workouts needs of their grant. */
export const WORKOUTS_SCOPE: Scope = 'workout:read';

/** Said whether the person never connected or disconnected since. */
const NOT_CONNECTED = 'You are not connected to the Athlete Data Service: connect to see your workouts.';
const SCOPE_MISSING = `Your connection does not allow reading your workouts (${WORKOUTS_SCOPE}): reconnect and allow it.`;
const UNAVAILABLE = 'The Athlete Data Service is unavailable right now; try again in a moment.';

/**
 * The person's workouts from the service (§4.3), read leniently, with a few tries within a short
 * deadline (read-with-retries.ts). A list read is kept as the person's last. It is the answer, without
 * asking the service, while it is recent (`reads.cacheMs`), and, marked stale, while the service
 * does not answer or once the person has asked the service their lists of the minute. The store is
 * shared by every web process, and so is the count in Redis: many stateless processes ask no more
 * often than one. The service is not asked when the grant cannot allow it.
 */
export async function listWorkouts(deps: WorkoutsDependencies, userId: number): Promise<WorkoutsOutcome> {
  const { db, clock, reads } = deps;
  const connection = await findConnection(db, userId);
  if (!connection) return { ok: false, reason: 'not-connected', message: NOT_CONNECTED };
  if (!connection.scopes.includes(WORKOUTS_SCOPE)) return { ok: false, reason: 'reconnect', message: SCOPE_MISSING };
  const last = await lastWorkoutList(db, userId, connection.grantId);
  if (last && clock().getTime() - last.fetchedAt.getTime() < reads.cacheMs) return { ok: true, stale: false, ...last };
  const limited = await reads.takeRead(userId);
  if (limited) {
    if (last) return { ok: true, stale: true, staleReason: 'too-many-reads', ...last };
    return { ok: false, reason: 'too-many-reads', message: tooManyReads(limited.retryAfterS), retryAfterS: limited.retryAfterS };
  }
  return readFromService(deps, connection);
}

/** Asks the service, keeps what it answered as the person's last list, or answers the last one kept. */
async function readFromService(
  { db, api, budget, clock }: WorkoutsDependencies,
  { userId, grantId }: Pick<Connection, 'userId' | 'grantId'>,
): Promise<WorkoutsOutcome> {
  const read = await readWithRetries(
    READ_RETRY_POLICY,
    { permit: (withinMs) => budget.takeWithin('read', userId, withinMs), pause: (ms) => budget.pause(ms) },
    (timeoutMs) => fetchWorkoutList(api, userId, { timeoutMs }),
  );
  if (read.ok) {
    const list: LastWorkoutList = { fetchedAt: clock(), ...readWorkoutListing(read.value) };
    await db.transaction().execute(async (trx) => {
      // The account may have been deleted while the service answered: then nothing is kept (401).
      await lockSignedInUser(trx, userId);
      await keepLastWorkoutList(trx, userId, grantId, list);
    });
    return { ok: true, stale: false, ...list };
  }
  const failure = failureOutcome(read.error);
  if (failure.reason !== 'unavailable') return failure;
  // Read again: another request of the person may have kept a list meanwhile.
  const last = await lastWorkoutList(db, userId, grantId);
  return last ? { ok: true, stale: true, staleReason: 'no-answer', ...last } : failure;
}

function tooManyReads(retryAfterS: number): string {
  return `You have asked for your workouts many times in the last minute; try again in ${retryAfterS} s.`;
}

/** No error: no try could start within the deadline (the budget is paused, reads have had their share, or the person's other request runs on). */
function failureOutcome(error: ServiceError | undefined): Extract<WorkoutsOutcome, { ok: false }> {
  switch (error?.kind) {
    case 'needs-reconnect':
      return { ok: false, reason: 'reconnect', message: `Reconnect to see your workouts: ${error.message}.` };
    case 'permanent':
      return { ok: false, reason: 'refused', message: `The Athlete Data Service refused: ${error.message}` };
    case 'retryable':
    case undefined:
      return {
        ok: false,
        reason: 'unavailable',
        message: UNAVAILABLE,
        ...(error?.retryAfterMs !== undefined && { retryAfterS: Math.ceil(error.retryAfterMs / 1000) }),
      };
  }
}
