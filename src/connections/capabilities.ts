import type { Scope } from '../provider/scopes.js';

/**
 * What the app can do for a user follows from the scopes actually granted, which may be fewer
 * than asked (the service decides). Sync work checks these before calling the service.
 */
export const CAPABILITIES = [
  { id: 'nutrition', label: 'Nutrition: daily meals and their items', scope: 'nutrition:write' },
  { id: 'wellness', label: 'Wellness: HRV, resting heart rate, sleep, weight', scope: 'health:write' },
  { id: 'activities', label: 'Activities: upload .fit files', scope: 'workout:write' },
  { id: 'workouts', label: 'Workouts list: read your workouts', scope: 'workout:read' },
] as const satisfies ReadonlyArray<{ id: string; label: string; scope: Scope }>;

export type Capability = (typeof CAPABILITIES)[number]['id'];

export function scopeOf(capability: Capability): Scope {
  return CAPABILITIES.find(({ id }) => id === capability)!.scope;
}

export function hasCapability(grantedScopes: readonly Scope[], capability: Capability): boolean {
  return grantedScopes.includes(scopeOf(capability));
}

export function describeCapabilities(grantedScopes: readonly Scope[]) {
  return CAPABILITIES.map(({ id, label, scope }) => ({ id, label, scope, granted: grantedScopes.includes(scope) }));
}
