import { z } from 'zod';

/** The scope table of the interface document, section 5. */
export const SCOPES = ['profile:read', 'workout:read', 'workout:write', 'health:write', 'nutrition:write', 'profile:write'] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_LIST_EXPECTED = `one or more of ${SCOPES.join(', ')}, separated by spaces`;

/** Scopes travel as one space-separated string (section 5, and RFC 6749 §3.3). */
export const scopeListSchema = z
  .string()
  .trim()
  .transform((value) => (value === '' ? [] : value.split(/ +/)))
  .pipe(z.array(z.enum(SCOPES, { error: `must be ${SCOPE_LIST_EXPECTED}` })).min(1, { error: `must be ${SCOPE_LIST_EXPECTED}` }));
