import { z } from 'zod';

/** The scope table of the interface document, section 5. */
export const SCOPE_NAMES = ['profile:read', 'workout:read', 'workout:write', 'health:write', 'nutrition:write', 'profile:write'] as const;

export type ScopeName = (typeof SCOPE_NAMES)[number];

export const scopeNameSchema = z.enum(SCOPE_NAMES);

/** What the consent page tells the athlete each scope allows (section 5, "Access"). */
export const SCOPE_DESCRIPTIONS: Record<ScopeName, string> = {
  'profile:read': 'Read your profile.',
  'workout:read': 'Read your activities.',
  'workout:write': 'Upload .FIT files and manage your workouts.',
  'health:write': 'Log daily wellness metrics such as HRV, sleep and weight.',
  'nutrition:write': 'Log calories, macros and individual meal items.',
  'profile:write': 'Update core athlete metrics (weight, FTP).',
};

export type ScopeParseResult = { ok: true; scopes: ScopeName[] } | { ok: false; problem: string };

/**
 * Reads a scope parameter: names from the table separated by single spaces (RFC 6749 §3.3).
 * Duplicates are folded; order is kept as asked.
 */
export function parseScopeParameter(value: string | undefined): ScopeParseResult {
  if (value === undefined || value === '') return { ok: false, problem: 'scope is missing' };
  const scopes: ScopeName[] = [];
  for (const token of value.split(' ')) {
    const scope = scopeNameSchema.safeParse(token);
    if (!scope.success) return { ok: false, problem: `unknown scope "${token}"` };
    if (!scopes.includes(scope.data)) scopes.push(scope.data);
  }
  return { ok: true, scopes };
}
