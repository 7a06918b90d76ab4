import { randomUUID } from 'node:crypto';
import { isoTime } from '../clock.js';
import type { SandboxRuntime } from '../runtime.js';
import { newSecret, sha256Hex } from '../secrets.js';
import type { AuthorizationCode, Grant, RevokedReason } from '../state.js';

/**
 * A grant starts when a code is redeemed, with its first refresh token; a seeded grant (admin
 * routes) starts the same way, for the athlete, client and scopes it names.
 */
export function createGrant(
  runtime: SandboxRuntime,
  code: Pick<AuthorizationCode, 'athlete' | 'clientId' | 'scopes'>,
): { grant: Grant; refreshToken: string } {
  const id = randomUUID();
  const refreshToken = issueRefreshToken(runtime, id);
  const grant: Grant = {
    id,
    athlete: code.athlete,
    clientId: code.clientId,
    scopes: code.scopes,
    status: 'active',
    revokedReason: null,
    createdAt: isoTime(runtime.clock.now()),
    refreshCount: 0,
    currentRefreshTokenSha256: refreshToken.sha256,
  };
  runtime.state.grants.set(id, grant);
  return { grant, refreshToken: refreshToken.token };
}

/** Replaces the grant's current refresh token; the old one is remembered as rotated out, for reuse detection. */
export function rotateRefreshToken(runtime: SandboxRuntime, grant: Grant): string {
  const current = runtime.state.refreshTokens.get(grant.currentRefreshTokenSha256);
  if (current) current.rotatedOutAt = runtime.clock.now();
  const next = issueRefreshToken(runtime, grant.id);
  grant.currentRefreshTokenSha256 = next.sha256;
  return next.token;
}

/** Every access and refresh token of a revoked grant stops working: they are checked against its status. */
export function revokeGrant(grant: Grant, reason: RevokedReason): void {
  if (grant.status === 'revoked') return;
  grant.status = 'revoked';
  grant.revokedReason = reason;
}

function issueRefreshToken(runtime: SandboxRuntime, grantId: string): { token: string; sha256: string } {
  const token = newSecret('sbx_rt');
  const sha256 = sha256Hex(token);
  const lifetimeS = runtime.settings.refreshTokenTtlS;
  runtime.state.refreshTokens.set(sha256, {
    grantId,
    expiresAt: lifetimeS === null ? null : runtime.clock.now() + lifetimeS * 1000,
    rotatedOutAt: null,
  });
  return { token, sha256 };
}
