import type { SandboxRuntime } from '../runtime.js';
import { newSecret, sha256Hex } from '../secrets.js';
import type { Grant } from '../state.js';
import type { ScopeName } from './scopes.js';

/** Section 2.1. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  refresh_token_expires_in?: number;
}

/**
 * Issues an access token for the grant and answers with it (section 2.1). `refreshToken` is the new
 * refresh token to hand out, or null when the client keeps the one it has.
 * `refresh_token_expires_in` is sent only when the client's refresh token has a lifetime.
 */
export function issueTokenResponse(runtime: SandboxRuntime, grant: Grant, scopes: ScopeName[], refreshToken: string | null): TokenResponse {
  const now = runtime.clock.now();
  const lifetimeS = runtime.settings.accessTokenTtlS;
  const accessToken = newSecret('sbx_at');
  runtime.state.accessTokens.set(sha256Hex(accessToken), {
    grantId: grant.id,
    scopes,
    expiresAt: now + lifetimeS * 1000,
  });
  const refreshExpiresAt = runtime.state.refreshTokens.get(grant.currentRefreshTokenSha256)?.expiresAt ?? null;
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: lifetimeS,
    ...(refreshToken === null ? {} : { refresh_token: refreshToken }),
    scope: scopes.join(' '),
    ...(refreshExpiresAt === null ? {} : { refresh_token_expires_in: Math.ceil((refreshExpiresAt - now) / 1000) }),
  };
}

export type AccessCheck = { ok: true; grant: Grant; scopes: ScopeName[] } | { ok: false; problem: string };

/**
 * An access token is good until it expires (and for the leeway after), unless its grant is revoked;
 * a refresh does not end it.
 */
export function checkAccessToken(runtime: SandboxRuntime, accessToken: string): AccessCheck {
  const record = runtime.state.accessTokens.get(sha256Hex(accessToken));
  const grant = record === undefined ? undefined : runtime.state.grants.get(record.grantId);
  if (record === undefined || grant === undefined) return { ok: false, problem: 'access token is unknown' };
  const acceptedUntil = record.expiresAt + runtime.settings.accessTokenLeewayS * 1000;
  if (runtime.clock.now() >= acceptedUntil) return { ok: false, problem: 'access token expired' };
  if (grant.status === 'revoked') return { ok: false, problem: 'access token was revoked' };
  return { ok: true, grant, scopes: record.scopes };
}
