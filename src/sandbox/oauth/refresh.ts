import { ApiError, invalidGrant } from '../http/api-error.js';
import type { SandboxRuntime } from '../runtime.js';
import { sha256Hex } from '../secrets.js';
import type { Grant } from '../state.js';
import { revokeGrant, rotateRefreshToken } from './grants.js';
import { parseScopeParameter, type ScopeName } from './scopes.js';
import { issueTokenResponse, type TokenResponse } from './tokens.js';

export interface RefreshRequest {
  clientId: string;
  refreshToken: string;
  /** RFC 6749 §6: an optional narrower scope; never wider than the grant. */
  scope: string | undefined;
}

/** The refresh_token grant (RFC 6749 §6); the request shape is "not shown" in section 4.2. */
export function refreshGrant(runtime: SandboxRuntime, request: RefreshRequest): TokenResponse {
  const { state, settings, clock } = runtime;
  state.counters.refreshRequests += 1;
  const now = clock.now();
  const token = state.refreshTokens.get(sha256Hex(request.refreshToken));
  const grant = token === undefined ? undefined : state.grants.get(token.grantId);
  if (token === undefined || grant === undefined || grant.clientId !== request.clientId) {
    throw invalidGrant('refresh token is unknown');
  }
  if (grant.status === 'revoked') throw invalidGrant('refresh token belongs to a revoked grant');
  if (token.expiresAt !== null && now >= token.expiresAt) throw invalidGrant('refresh token expired');
  // Within the grace period a rotated-out token still refreshes its grant, as if it were the current one.
  if (token.rotatedOutAt !== null && now - token.rotatedOutAt >= settings.reuseGraceS * 1000) {
    rejectRotatedOutToken(runtime, grant);
  }
  const scopes = narrowedScopes(grant.scopes, request.scope);
  grant.refreshCount += 1;
  state.counters.tokenGrants.refresh_token += 1;
  // RFC 6749 §6: the server MAY issue a new refresh token. Without rotation it does not, and the
  // response has no refresh_token: the client keeps using the one it has.
  const newRefreshToken = settings.rotateRefreshTokens ? rotateRefreshToken(runtime, grant) : null;
  return issueTokenResponse(runtime, grant, scopes, newRefreshToken);
}

/** A rotated-out token used again may be stolen: with reuse detection, the whole grant goes. */
function rejectRotatedOutToken(runtime: SandboxRuntime, grant: Grant): never {
  if (!runtime.settings.reuseDetection) throw invalidGrant('refresh token was rotated out');
  revokeGrant(grant, 'refresh_token_reuse');
  runtime.state.counters.reuseDetections += 1;
  throw invalidGrant('refresh token was rotated out and used again; the whole grant is revoked');
}

function narrowedScopes(granted: ScopeName[], asked: string | undefined): ScopeName[] {
  if (asked === undefined) return granted;
  const parsed = parseScopeParameter(asked);
  if (!parsed.ok) throw new ApiError(400, 'invalid_scope', parsed.problem);
  const beyond = parsed.scopes.filter((scope) => !granted.includes(scope));
  if (beyond.length > 0) {
    throw new ApiError(400, 'invalid_scope', `scope beyond the grant: ${beyond.join(' ')} (RFC 6749 §6)`);
  }
  return parsed.scopes;
}
