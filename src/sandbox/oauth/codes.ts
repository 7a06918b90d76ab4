import { isoTime } from '../clock.js';
import { invalidGrant } from '../http/api-error.js';
import type { SandboxRuntime } from '../runtime.js';
import { newSecret, sameSecret, sha256Hex } from '../secrets.js';
import { athleteNamed } from '../state.js';
import type { AuthorizationRequest } from './authorize-request.js';
import { createGrant, revokeGrant } from './grants.js';
import { s256Challenge } from './pkce.js';
import { issueTokenResponse, type TokenResponse } from './tokens.js';

/** The athlete approved: a short-lived, one-use code bound to the client, redirect URI and PKCE challenge. */
export function issueAuthorizationCode(runtime: SandboxRuntime, request: AuthorizationRequest, athleteName: string): string {
  const now = runtime.clock.now();
  athleteNamed(runtime.state, athleteName, isoTime(now));
  const code = newSecret('sbx_code');
  runtime.state.codes.set(sha256Hex(code), {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    athlete: athleteName,
    scopes: request.scopes,
    expiresAt: now + runtime.settings.codeTtlS * 1000,
    grantId: null,
  });
  return code;
}

export interface CodeRedemption {
  clientId: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
}

/** The authorization_code grant (section 4.2, RFC 6749 §4.1.3, RFC 7636 §4.6). */
export function redeemAuthorizationCode(runtime: SandboxRuntime, redemption: CodeRedemption): TokenResponse {
  const code = runtime.state.codes.get(sha256Hex(redemption.code));
  if (code === undefined || code.clientId !== redemption.clientId) throw invalidGrant('authorization code is unknown');
  if (code.grantId !== null) rejectReusedCode(runtime, code.grantId);
  if (runtime.clock.now() >= code.expiresAt) throw invalidGrant('authorization code expired');
  if (code.redirectUri !== redemption.redirectUri) {
    throw invalidGrant('redirect_uri differs from the one of the authorization request (RFC 6749 §4.1.3)');
  }
  if (!sameSecret(s256Challenge(redemption.codeVerifier), code.codeChallenge)) {
    throw invalidGrant('code_verifier does not match the code_challenge (RFC 7636 §4.6)');
  }
  const { grant, refreshToken } = createGrant(runtime, code);
  code.grantId = grant.id;
  runtime.state.counters.tokenGrants.authorization_code += 1;
  return issueTokenResponse(runtime, grant, grant.scopes, refreshToken);
}

/** RFC 6749 §4.1.2: a code used twice is refused, and what it issued is revoked. */
function rejectReusedCode(runtime: SandboxRuntime, grantId: string): never {
  const grant = runtime.state.grants.get(grantId);
  if (grant) revokeGrant(grant, 'authorization_code_reuse');
  runtime.state.counters.codeReuses += 1;
  throw invalidGrant('authorization code was already used; the tokens issued from it are revoked (RFC 6749 §4.1.2)');
}
