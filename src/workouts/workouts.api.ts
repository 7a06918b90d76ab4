import { Router } from 'express';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { listWorkouts, type StaleReason, type WorkoutsDependencies, type WorkoutsFailure } from './workouts.js';

/** How each failure is answered: the person must (re)connect, the service is away, they asked too often, or it refused. */
const FAILURE_ANSWERS: Record<WorkoutsFailure, { status: number; error: string }> = {
  'not-connected': { status: 403, error: 'reconnect_needed' },
  reconnect: { status: 403, error: 'reconnect_needed' },
  unavailable: { status: 503, error: 'service_unavailable' },
  'too-many-reads': { status: 429, error: 'too_many_requests' },
  refused: { status: 502, error: 'service_refused' },
};

/** Why a last list stands in for a fresh one: the error it stands in for. */
const STALE_REASONS: Record<StaleReason, string> = {
  'no-answer': 'service_unavailable',
  'too-many-reads': 'too_many_requests',
};

/**
 * GET /api/workouts: the person's workouts at the service, with notes on what could not be read and
 * when the list was fetched; `stale: true` when this is the last list fetched, the service not
 * answering or the person having asked too often (`staleReason`).
 */
export function workoutsApi(deps: WorkoutsDependencies): Router {
  const router = Router();

  router.get('/api/workouts', requireUserApi, async (_req, res) => {
    const outcome = await listWorkouts(deps, currentUser(res).id);
    if (outcome.ok) {
      const { workouts, notes, stale, fetchedAt } = outcome;
      return res.json({
        workouts,
        notes,
        stale,
        ...(outcome.stale && { staleReason: STALE_REASONS[outcome.staleReason] }),
        fetchedAt: fetchedAt.toISOString(),
      });
    }
    const { status, error } = FAILURE_ANSWERS[outcome.reason];
    // The service's own Retry-After (a 429, say), or the person's limit's, tells the client when asking again can succeed.
    if (outcome.retryAfterS !== undefined) res.set('Retry-After', String(outcome.retryAfterS));
    res.status(status).json({ error, message: outcome.message });
  });

  return router;
}
