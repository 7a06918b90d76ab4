import type { FaultKind } from './settings.js';
import type { AuthorizationRequest } from './oauth/authorize-request.js';
import type { ScopeName } from './oauth/scopes.js';
import type { FitSummary } from './data/fit.js';
import type { NutritionRecord, WellnessRecord } from './data/payloads.js';

/** One upserted record with what the sandbox knows about how it arrived. */
export interface StoredRecord<Payload> {
  id: string;
  payload: Payload;
  createdAt: string;
  /** When the latest upsert replaced the payload. */
  receivedAt: string;
  /** How many upserts hit this record. */
  writes: number;
}

export interface WorkoutPayload {
  name: string;
  metadata: Record<string, unknown> | null;
  bytes: number;
  activity: FitSummary;
}

export interface Athlete {
  name: string;
  createdAt: string;
  /** By calendar date. */
  nutrition: Map<string, StoredRecord<NutritionRecord>>;
  /** By calendar date. */
  wellness: Map<string, StoredRecord<WellnessRecord>>;
  /** By SHA-256 hex of the file bytes. */
  workouts: Map<string, StoredRecord<WorkoutPayload>>;
}

export interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  athlete: string;
  scopes: ScopeName[];
  expiresAt: number;
  /** The grant the code was redeemed for; set once, so a second redemption is recognised. */
  grantId: string | null;
}

export type RevokedReason = 'authorization_code_reuse' | 'refresh_token_reuse';

export interface Grant {
  id: string;
  athlete: string;
  clientId: string;
  scopes: ScopeName[];
  status: 'active' | 'revoked';
  revokedReason: RevokedReason | null;
  createdAt: string;
  /** Successful refreshes. */
  refreshCount: number;
  /** Lets a test compare with the refresh token the app stored, without the sandbox showing the token. */
  currentRefreshTokenSha256: string;
}

export interface AccessTokenRecord {
  grantId: string;
  scopes: ScopeName[];
  expiresAt: number;
}

export interface RefreshTokenRecord {
  grantId: string;
  expiresAt: number | null;
  /** When a newer refresh token replaced this one; null while it is the grant's current one. */
  rotatedOutAt: number | null;
}

export type GrantType = 'authorization_code' | 'refresh_token';

export interface Counters {
  /** By "METHOD /path", then by status code ("no response" when the connection ended first). */
  requests: Map<string, Map<string, number>>;
  /** Tokens issued, by grant_type. */
  tokenGrants: Record<GrantType, number>;
  /** Every refresh_token request from an authenticated client, whatever its outcome. */
  refreshRequests: number;
  reuseDetections: number;
  codeReuses: number;
  faults: Record<FaultKind, number>;
}

/**
 * Everything the sandbox remembers. Credentials are keyed by their SHA-256 hex:
 * the raw values exist only in the responses that hand them out.
 */
export interface SandboxState {
  athletes: Map<string, Athlete>;
  /** Authorization requests waiting for the athlete's decision, by a random id. */
  pendingAuthorizations: Map<string, AuthorizationRequest>;
  /** Requests already decided, by the same id: a second decision (the browser's Back) is sent back to the client. */
  decidedAuthorizations: Map<string, AuthorizationRequest>;
  codes: Map<string, AuthorizationCode>;
  grants: Map<string, Grant>;
  accessTokens: Map<string, AccessTokenRecord>;
  refreshTokens: Map<string, RefreshTokenRecord>;
  counters: Counters;
}

export function createState(): SandboxState {
  return {
    athletes: new Map(),
    pendingAuthorizations: new Map(),
    decidedAuthorizations: new Map(),
    codes: new Map(),
    grants: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    counters: {
      requests: new Map(),
      tokenGrants: { authorization_code: 0, refresh_token: 0 },
      refreshRequests: 0,
      reuseDetections: 0,
      codeReuses: 0,
      faults: { '500': 0, '503': 0, '429': 0, stall: 0, drop: 0 },
    },
  };
}

/** The athlete of that name, created on first use. */
export function athleteNamed(state: SandboxState, name: string, now: string): Athlete {
  const existing = state.athletes.get(name);
  if (existing) return existing;
  const athlete: Athlete = { name, createdAt: now, nutrition: new Map(), wellness: new Map(), workouts: new Map() };
  state.athletes.set(name, athlete);
  return athlete;
}
