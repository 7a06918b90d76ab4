import { KINDS } from '../kinds.js';
import type { Scope } from '../provider/scopes.js';

/**
 * What the app can do for a user follows from the scopes actually granted, which may be fewer than
 * asked (the service decides): one capability per kind (src/kinds.ts), named by the kind, on when
 * the kind's scope is granted. Sync work checks these before calling the service. Every capability
 * is built: its page is where the person uses it.
 */
export interface CapabilityView {
  id: string;
  name: string;
  label: string;
  scope: Scope;
  page: string;
}

const CAPABILITIES: readonly CapabilityView[] = KINDS.map((kind) => ({
  id: kind.name,
  name: kind.title,
  label: kind.label,
  scope: kind.scope,
  page: kind.page.path,
}));

/**
 * The scopes the app asks for: those configured (ATHLETE_SCOPES), else the scope of each kind it
 * has, so that a kind removed from src/kinds.ts is no longer asked for.
 */
export function withRequestedScopes<Settings extends { scopes?: readonly Scope[] }>(
  settings: Settings,
): Settings & { scopes: readonly Scope[] } {
  return { ...settings, scopes: settings.scopes ?? [...new Set(KINDS.map((kind) => kind.scope))] };
}

/** The capability of a kind by its name (an outbox entry's `kind`); undefined for a name no kind has. */
export function capabilityOf(id: string): CapabilityView | undefined {
  return CAPABILITIES.find((entry) => entry.id === id);
}

/** Whether the kind named `id` may be used: false for a name no kind of this app has. */
export function hasCapability(grantedScopes: readonly Scope[], id: string): boolean {
  const scope = capabilityOf(id)?.scope;
  return scope !== undefined && grantedScopes.includes(scope);
}

export function describeCapabilities(grantedScopes: readonly Scope[]) {
  return CAPABILITIES.map((entry) => ({ ...entry, granted: grantedScopes.includes(entry.scope) }));
}

/** The capability whose scope is `scope`, as a notice names it. */
export function capabilityOfScope(scope: string): CapabilityView | undefined {
  return CAPABILITIES.find((entry) => entry.scope === scope);
}

/** The capabilities whose scope the service withdrew (refused though the grant named it) and that are still off: only reconnecting can give them back. */
export function withdrawnCapabilities(withdrawnScopes: readonly string[], grantedScopes: readonly Scope[]) {
  return CAPABILITIES.filter((entry) => withdrawnScopes.includes(entry.scope) && !grantedScopes.includes(entry.scope));
}
