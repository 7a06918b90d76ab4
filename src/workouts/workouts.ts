import { hasCapability, scopeOf } from '../connections/capabilities.js';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import { ServiceError } from '../provider/service-error.js';
import { underPermit, type RequestBudget } from '../queue/request-budget.js';
import { readWorkoutListing, type WorkoutListing } from './workout-listing.js';

export interface WorkoutsDependencies {
  db: Db;
  api: ServiceApi;
  /** The requests to the service that every process shares; a person looking at a page goes in the fresh lane. */
  budget: RequestBudget;
}

/**
 * What listing a person's workouts came to. `not-connected` and `reconnect`: only the person can
 * fix it, by connecting (again) and granting the scope; `unavailable`: try again in a moment;
 * `refused`: the service said no, in its words.
 */
export type WorkoutsOutcome =
  | ({ ok: true } & WorkoutListing)
  | { ok: false; reason: WorkoutsFailure; message: string; retryAfterS?: number };

export type WorkoutsFailure = 'not-connected' | 'reconnect' | 'unavailable' | 'refused';

const NOT_CONNECTED = 'You have not connected to the Athlete Data Service yet: connect to see your workouts.';
const SCOPE_MISSING = `Your connection does not allow reading your workouts (${scopeOf('workouts')}): reconnect and allow it.`;
const UNAVAILABLE = 'The Athlete Data Service is unavailable right now; try again in a moment.';

/** The person's workouts from the service (§4.3), read leniently; the service is not asked when the grant cannot allow it. */
export async function listWorkouts({ db, api, budget }: WorkoutsDependencies, userId: number): Promise<WorkoutsOutcome> {
  const connection = await findConnection(db, userId);
  if (!connection) return { ok: false, reason: 'not-connected', message: NOT_CONNECTED };
  if (!hasCapability(connection.scopes, 'workouts')) return { ok: false, reason: 'reconnect', message: SCOPE_MISSING };
  try {
    const permit = await budget.take('fresh', userId);
    return { ok: true, ...readWorkoutListing(await underPermit(permit, () => api.listWorkouts(userId))) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    // The service asked every client of ours to slow down, the workers included.
    if (error.retryAfterMs !== undefined) await budget.pause(error.retryAfterMs);
    return failureOutcome(error);
  }
}

function failureOutcome(error: ServiceError): WorkoutsOutcome {
  switch (error.kind) {
    case 'needs-reconnect':
      return { ok: false, reason: 'reconnect', message: `Reconnect to see your workouts: ${error.message}.` };
    case 'retryable':
      return {
        ok: false,
        reason: 'unavailable',
        message: UNAVAILABLE,
        ...(error.retryAfterMs !== undefined && { retryAfterS: Math.ceil(error.retryAfterMs / 1000) }),
      };
    case 'permanent':
      return { ok: false, reason: 'refused', message: `The Athlete Data Service refused: ${error.message}` };
  }
}
