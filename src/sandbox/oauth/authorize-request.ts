import { z } from 'zod';
import type { Settings } from '../settings.js';
import { s256ChallengeSchema } from './pkce.js';
import { parseScopeParameter, type ScopeName } from './scopes.js';

/** A checked authorization request (section 4.1). */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Asked for minus the withheld ones: what approval grants. */
  scopes: ScopeName[];
  withheldScopes: ScopeName[];
  state: string;
  codeChallenge: string;
}

/** The RFC 6749 §4.1.2.1 error codes a bad request is sent back to the client with. */
export type AuthorizeErrorCode = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope';

export type AuthorizeOutcome =
  /** The client or its redirect URI cannot be trusted: tell the person, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'error_page'; description: string }
  | { kind: 'redirect_error'; redirectUri: string; state: string | undefined; error: AuthorizeErrorCode; description: string }
  | { kind: 'valid'; request: AuthorizationRequest };

type Problem = { error: AuthorizeErrorCode; description: string };

/** With Express's "simple" query parser a repeated parameter arrives as an array. */
const rawQuerySchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const singleValuedQuerySchema = z.record(z.string(), z.string());

/**
 * Checks the query of GET /api/oauth/authorize. The client and its redirect URI come first: only once
 * both are trusted may a problem with the rest be reported by redirecting there.
 */
export function checkAuthorizeQuery(query: unknown, settings: Settings): AuthorizeOutcome {
  const parsed = rawQuerySchema.safeParse(query);
  if (!parsed.success) return { kind: 'error_page', description: 'The query string could not be read.' };
  const params = parsed.data;

  const clientId = params['client_id'];
  if (typeof clientId !== 'string') return { kind: 'error_page', description: 'client_id is missing or repeated.' };
  if (clientId !== settings.clientId) return { kind: 'error_page', description: 'client_id is not a known client.' };
  const redirectUri = params['redirect_uri'];
  if (typeof redirectUri !== 'string') return { kind: 'error_page', description: 'redirect_uri is missing or repeated.' };
  if (!settings.redirectUris.includes(redirectUri)) {
    return { kind: 'error_page', description: 'redirect_uri is not registered for this client (exact match required).' };
  }

  const state = typeof params['state'] === 'string' && params['state'] !== '' ? params['state'] : undefined;
  const checked = checkRedirectableParams(params, settings.withheldScopes);
  if ('error' in checked) return { kind: 'redirect_error', redirectUri, state, ...checked };
  return { kind: 'valid', request: { clientId, redirectUri, ...checked } };
}

function checkRedirectableParams(
  params: Record<string, string | string[]>,
  withheld: readonly ScopeName[],
): Problem | Omit<AuthorizationRequest, 'clientId' | 'redirectUri'> {
  const single = singleValuedQuerySchema.safeParse(params);
  if (!single.success) {
    const repeated = single.error.issues.map((issue) => String(issue.path[0]));
    return { error: 'invalid_request', description: `repeated parameter: ${repeated.join(', ')} (RFC 6749 §3.1)` };
  }
  const { response_type, scope, state, code_challenge, code_challenge_method } = single.data;

  if (response_type === undefined) return { error: 'invalid_request', description: 'response_type is missing' };
  if (response_type !== 'code') {
    return { error: 'unsupported_response_type', description: 'response_type must be "code"' };
  }
  const asked = parseScopeParameter(scope);
  if (!asked.ok) return { error: 'invalid_scope', description: asked.problem };
  const scopes = asked.scopes.filter((name) => !withheld.includes(name));
  if (scopes.length === 0) {
    return { error: 'invalid_scope', description: 'none of the requested scopes can be granted' };
  }
  if (!state) return { error: 'invalid_request', description: 'state is missing' };
  if (code_challenge === undefined) return { error: 'invalid_request', description: 'code_challenge is missing' };
  if (!s256ChallengeSchema.safeParse(code_challenge).success) {
    return {
      error: 'invalid_request',
      description: 'code_challenge must be 43 base64url characters, BASE64URL(SHA256(verifier)) (RFC 7636 §4.2)',
    };
  }
  if (code_challenge_method !== 'S256') {
    return { error: 'invalid_request', description: 'code_challenge_method must be S256 (section 5)' };
  }
  return {
    scopes,
    withheldScopes: asked.scopes.filter((name) => withheld.includes(name)),
    state,
    codeChallenge: code_challenge,
  };
}
