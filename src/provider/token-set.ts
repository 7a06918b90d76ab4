import { z } from 'zod';
import { SCOPES, type Scope } from './scopes.js';

/** The token response of section 2.1, as the app keeps it. */
export interface TokenSet {
  accessToken: string;
  /** Absent when the service did not issue a new one (RFC 6749 §6): keep the one you have. */
  refreshToken: string | undefined;
  /** When the response arrived; with expiresAt it gives the token's lifetime. */
  issuedAt: Date;
  expiresAt: Date;
  /** Present only when the service enforces a refresh-token lifetime (section 2.1). */
  refreshExpiresAt: Date | undefined;
  scopes: Scope[];
}

const KNOWN_SCOPES = new Set<string>(SCOPES);

/** Section 2.1. openid-client has already checked token_type and the JSON shape; we check the rest. */
const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  refresh_token_expires_in: z.number().int().positive().optional(),
});

/**
 * Turns a token response into a TokenSet. `scopesIfOmitted` stands in for an absent `scope`
 * (RFC 6749 §5.1: omitted means identical to what was asked: the requested scopes for a code
 * exchange, the grant's own for a refresh); scope names the app does not know are dropped,
 * since no capability can depend on them.
 */
export function parseTokenResponse(body: unknown, scopesIfOmitted: readonly Scope[], now: Date): TokenSet {
  const response = tokenResponseSchema.parse(body);
  const granted = response.scope === undefined ? [...scopesIfOmitted] : response.scope.split(' ');
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    issuedAt: now,
    expiresAt: secondsAfter(now, response.expires_in),
    refreshExpiresAt: response.refresh_token_expires_in === undefined ? undefined : secondsAfter(now, response.refresh_token_expires_in),
    scopes: granted.filter((scope): scope is Scope => KNOWN_SCOPES.has(scope)),
  };
}

function secondsAfter(instant: Date, seconds: number): Date {
  return new Date(instant.getTime() + seconds * 1000);
}
