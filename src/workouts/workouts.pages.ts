import { Router } from 'express';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { dateStyleOf } from '../web/locale.js';
import type { RenderPage } from '../web/pages.js';
import { columnsPresent, displayFetchedAt, displayWorkout } from './workout-display.js';
import { listWorkouts, type WorkoutsDependencies } from './workouts.js';

/**
 * The Workouts page: the person's workouts at the service, or the last list fetched while it does not
 * answer or the person has asked too often, saying as of when and why. Every outcome is a page with
 * a message, never an error page.
 */
export function workoutsPages({ renderPage, ...deps }: WorkoutsDependencies & { renderPage: RenderPage }): Router {
  const router = Router();

  router.get('/workouts', requireUserPage, async (req, res) => {
    const user = currentUser(res);
    const outcome = await listWorkouts(deps, user.id);
    const style = dateStyleOf(req);
    const page = outcome.ok
      ? {
          columns: columnsPresent(outcome.workouts),
          rows: outcome.workouts.map((workout) => displayWorkout(workout, user.timezone, style)),
          notes: outcome.notes,
          stale: outcome.stale
            ? { asOf: displayFetchedAt(outcome.fetchedAt, user.timezone, deps.clock(), style), reason: outcome.staleReason }
            : undefined,
        }
      : { failure: outcome };
    renderPage(req, res, 'workouts/workouts', { title: 'Workouts', ...page });
  });

  return router;
}
