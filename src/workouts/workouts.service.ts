import type { ServiceApi } from '../provider/api.js';

/**
 * The person's workouts as the service lists them (§4.3), as text: the document shows neither query
 * parameters nor a response shape, so the caller reads it leniently (workout-listing.ts).
 */
export function fetchWorkoutList(api: ServiceApi, userId: number, options?: { timeoutMs?: number }): Promise<string> {
  return api.getText(userId, '/api/workouts', options);
}
