import type { SandboxRuntime } from '../runtime.js';
import { publicSettings } from '../settings.js';
import type { Athlete, Counters } from '../state.js';

export type StateSnapshot = ReturnType<typeof snapshot>;

/**
 * Everything the sandbox holds, as plain JSON: each athlete's records as stored (nutrition and wellness
 * by date, workouts by SHA-256), grants, counters and the effective settings. No credential appears:
 * the state keeps only their digests, and the client secret is left out.
 */
export function snapshot(runtime: SandboxRuntime) {
  const { state } = runtime;
  return {
    settings: publicSettings(runtime.settings),
    athletes: Object.fromEntries([...state.athletes].map(([name, athlete]) => [name, athleteSnapshot(athlete)])),
    grants: [...state.grants.values()],
    counters: countersSnapshot(state.counters),
  };
}

/** One athlete's records as stored, as plain JSON. */
export function athleteSnapshot(athlete: Athlete) {
  return {
    name: athlete.name,
    createdAt: athlete.createdAt,
    nutrition: Object.fromEntries(athlete.nutrition),
    wellness: Object.fromEntries(athlete.wellness),
    workouts: Object.fromEntries(athlete.workouts),
  };
}

export function countersSnapshot(counters: Counters) {
  return {
    ...counters,
    requests: Object.fromEntries([...counters.requests].map(([endpoint, byStatus]) => [endpoint, Object.fromEntries(byStatus)])),
  };
}
