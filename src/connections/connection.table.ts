import type { Selectable } from 'kysely';

export type ConnectionStatus = 'connected' | 'needs_reconnect';

/**
 * Why a connection is in its status, when that needs telling the person:
 * - grant_revoked: the service refused the grant (`invalid_grant`): withdrawn, ended, or a reused refresh token;
 * - refresh_token_expired: the refresh token's lifetime (section 2.1) has passed;
 * - token_key_removed: no configured key opens the stored tokens (TOKEN_ENCRYPTION_PREVIOUS_KEYS lost it);
 * - tokens_damaged: the key that sealed the stored tokens is configured but does not open them (altered or copied from another row).
 */
export type StatusReason = 'grant_revoked' | 'refresh_token_expired' | 'token_key_removed' | 'tokens_damaged';

/** One row per partner user: their grant at the Athlete Data Service. Tokens are sealed (token-crypto.ts). */
export interface ConnectionTable {
  user_id: number;
  /** New with every Connect: a write meant for an earlier grant can never land on a later one. */
  grant_id: string;
  token_key_id: string;
  access_token_sealed: string;
  refresh_token_sealed: string;
  /** ISO 8601 UTC instants: when the access token was issued and when it expires. */
  issued_at: string;
  expires_at: string;
  refresh_expires_at: string | null;
  /** Granted scopes, space-separated as the service sends them. */
  scopes: string;
  status: ConnectionStatus;
  /** Set with needs_reconnect; a Connect clears it. */
  status_reason: StatusReason | null;
  /** Bumped on every write; writers compare-and-swap on it so newer tokens are never overwritten. */
  version: number;
  created_at: string;
  updated_at: string;
}

export type ConnectionRow = Selectable<ConnectionTable>;
