import type { Selectable } from 'kysely';

export type ConnectionStatus = 'connected' | 'needs_reconnect';

/**
 * Why a connection is in its status, when that needs telling the person:
 * - grant_revoked: the service refused the grant (`invalid_grant`): withdrawn, ended, or a reused refresh token;
 * - refresh_token_expired: the refresh token's lifetime (section 2.1) has passed;
 * - token_key_removed: the key that sealed the stored tokens was declared gone for good (`npm run reseal -- --forget-key`);
 * - tokens_damaged: the key that sealed the stored tokens is configured but does not open them (altered or copied from another row).
 * - refresh_interrupted: a refresh's outcome was lost (its process was killed, or its answer never came), and
 *   the service refused the refresh token stored before it (it had rotated it).
 */
export type StatusReason = 'grant_revoked' | 'refresh_token_expired' | 'token_key_removed' | 'tokens_damaged' | 'refresh_interrupted';

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
  /**
   * The refresh lease (docs/architecture.md, decision 5): who is refreshing (a random id per attempt) and until when
   * (an ISO 8601 UTC instant). Taken before the token request, cleared with the new tokens or a
   * definite failure; found expired, it means a refresh's outcome is unknown. Both null when none.
   */
  refresh_lease_owner: string | null;
  refresh_lease_until: string | null;
  /** Bumped on every write of tokens or status; writers compare-and-swap on it so newer tokens are never overwritten. */
  version: number;
  created_at: string;
  updated_at: string;
}

export type ConnectionRow = Selectable<ConnectionTable>;
