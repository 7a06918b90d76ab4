import type { Scope } from '../provider/scopes.js';
import { WELLNESS_MEASUREMENTS } from '../wellness/wellness.fields.js';

/** What Wellness covers, in words: "HRV, resting heart rate, sleep, …" as declared. */
const WELLNESS_WORDS = Object.values(WELLNESS_MEASUREMENTS)
  .map((measurement) => measurement.words)
  .join(', ');

/**
 * What the app can do for a user follows from the scopes actually granted, which may be fewer
 * than asked (the service decides). Sync work checks these before calling the service. Every
 * capability listed here is built: its page is where the person uses it.
 */
export const CAPABILITIES = [
  { id: 'nutrition', name: 'Nutrition', label: 'Nutrition: daily meals and their items', scope: 'nutrition:write', page: '/meals' },
  { id: 'wellness', name: 'Wellness', label: `Wellness: ${WELLNESS_WORDS}`, scope: 'health:write', page: '/wellness' },
  { id: 'activities', name: 'Activities', label: 'Activities: upload .fit files', scope: 'workout:write', page: '/activities' },
  { id: 'workouts', name: 'Workouts', label: 'Workouts list: read your workouts', scope: 'workout:read', page: '/workouts' },
] as const satisfies ReadonlyArray<{ id: string; name: string; label: string; scope: Scope; page: string }>;

export type Capability = (typeof CAPABILITIES)[number]['id'];

export function capabilityOf(id: Capability): (typeof CAPABILITIES)[number] {
  return CAPABILITIES.find((entry) => entry.id === id)!;
}

export function scopeOf(id: Capability): Scope {
  return capabilityOf(id).scope;
}

export function hasCapability(grantedScopes: readonly Scope[], id: Capability): boolean {
  return grantedScopes.includes(scopeOf(id));
}

export function describeCapabilities(grantedScopes: readonly Scope[]) {
  return CAPABILITIES.map((entry) => ({ ...entry, granted: grantedScopes.includes(entry.scope) }));
}

/** The capabilities whose scope the service withdrew (refused though the grant named it) and that are still off: only reconnecting can give them back. */
export function withdrawnCapabilities(withdrawnScopes: readonly string[], grantedScopes: readonly Scope[]) {
  return CAPABILITIES.filter((entry) => withdrawnScopes.includes(entry.scope) && !grantedScopes.includes(entry.scope));
}
