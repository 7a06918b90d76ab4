import { exportField } from '../accounts/export-pieces.js';
import type { Kind } from '../kinds/kind.js';
import { lastWorkoutList } from './last-workout-list.repository.js';
import { createWorkoutReadLimits } from './read-limits.js';
import { workoutsApi } from './workouts.api.js';
import { WORKOUTS_SCOPE } from './workouts.js';
import { workoutsPages } from './workouts.pages.js';
import { workoutReadSettings } from './workouts.settings.js';

/**
 * The workouts list: a read feature. It reads the person's workouts from the service while they
 * wait (§4.3), and keeps only the last list read; nothing goes through the outbox, so it has no
 * `sync` part.
 */
export const workouts: Kind = {
  name: 'workouts',
  title: 'Workouts',
  label: 'Workouts list: read your workouts',
  scope: WORKOUTS_SCOPE,
  page: { path: '/workouts', navLabel: 'Workouts' },
  stylesheet: 'workouts/workouts.css',
  settings: [workoutReadSettings],
  web({ config, db, redis, serviceApi, budget, renderPage, clock }) {
    const reads = createWorkoutReadLimits({
      redis,
      redisPrefix: config.redis.prefix,
      settings: config.kindSettings.of(workoutReadSettings).workoutReads,
    });
    const deps = { db, api: serviceApi, budget, reads, clock };
    return { api: workoutsApi(deps), pages: workoutsPages({ ...deps, renderPage }) };
  },
  account: {
    async *exportOf(db, userId) {
      const lastList = await lastWorkoutList(db, userId);
      yield exportField('lastWorkoutList', lastList && { ...lastList, fetchedAt: lastList.fetchedAt.toISOString() });
    },
    async eraseOf(trx, userId) {
      await trx.deleteFrom('last_workout_lists').where('user_id', '=', userId).execute();
    },
  },
};
