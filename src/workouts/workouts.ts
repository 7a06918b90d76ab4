import { lockSignedInUser } from '../accounts/user.repository.js';
import { hasCapability, scopeOf } from '../connections/capabilities.js';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import type { ServiceError } from '../provider/service-error.js';
import type { RequestBudget } from '../queue/request-budget.js';
import { keepLastWorkoutList, lastWorkoutList } from './last-workout-list.repository.js';
import { READ_RETRY_POLICY, readWithRetries } from './read-with-retries.js';
import { readWorkoutListing, type WorkoutListing } from './workout-listing.js';

export interface WorkoutsDependencies {
  db: Db;
  api: ServiceApi;
  /** The requests to the service that every process shares; a person looking at a page goes in the fresh lane. */
  budget: RequestBudget;
  clock: () => Date;
}

/**
 * What listing a person's workouts came to. A list, fresh or, while the service does not answer, the
 * last one fetched (`stale`), with when it was fetched. Else `not-connected` and `reconnect`: only
 * the person can fix it, by connecting (again) and granting the scope; `unavailable`: try again in a
 * moment (no list is known); `refused`: the service said no, in its words.
 */
export type WorkoutsOutcome =
  | ({ ok: true; stale: boolean; fetchedAt: Date } & WorkoutListing)
  | { ok: false; reason: WorkoutsFailure; message: string; retryAfterS?: number };

export type WorkoutsFailure = 'not-connected' | 'reconnect' | 'unavailable' | 'refused';

const NOT_CONNECTED = 'You have not connected to the Athlete Data Service yet: connect to see your workouts.';
const SCOPE_MISSING = `Your connection does not allow reading your workouts (${scopeOf('workouts')}): reconnect and allow it.`;
const UNAVAILABLE = 'The Athlete Data Service is unavailable right now; try again in a moment.';

/**
 * The person's workouts from the service (§4.3), read leniently, with a few tries within a short
 * deadline (read-with-retries.ts). A list read is kept as the person's last; while the service does
 * not answer, that one is the answer. The service is not asked when the grant cannot allow it.
 */
export async function listWorkouts({ db, api, budget, clock }: WorkoutsDependencies, userId: number): Promise<WorkoutsOutcome> {
  const connection = await findConnection(db, userId);
  if (!connection) return { ok: false, reason: 'not-connected', message: NOT_CONNECTED };
  if (!hasCapability(connection.scopes, 'workouts')) return { ok: false, reason: 'reconnect', message: SCOPE_MISSING };
  const read = await readWithRetries(
    READ_RETRY_POLICY,
    { permit: (withinMs) => budget.takeWithin('fresh', userId, withinMs), pause: (ms) => budget.pause(ms) },
    (timeoutMs) => api.listWorkouts(userId, { timeoutMs }),
  );
  if (read.ok) {
    const list = { fetchedAt: clock(), ...readWorkoutListing(read.value) };
    await db.transaction().execute(async (trx) => {
      // The account may have been deleted while the service answered: then nothing is kept (401).
      await lockSignedInUser(trx, userId);
      await keepLastWorkoutList(trx, userId, connection.grantId, list);
    });
    return { ok: true, stale: false, ...list };
  }
  const failure = failureOutcome(read.error);
  if (failure.reason !== 'unavailable') return failure;
  const last = await lastWorkoutList(db, userId, connection.grantId);
  return last ? { ok: true, stale: true, ...last } : failure;
}

/** No error: no try could start within the deadline (the budget is paused, or the person's other request runs on). */
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
