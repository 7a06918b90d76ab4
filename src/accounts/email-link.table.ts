import type { Generated, Selectable } from 'kysely';

/**
 * What a link mailed to a person does: confirms the account's address, confirms a new address the
 * person asked to change to (and then changes it), or lets them set a new password.
 */
export type LinkPurpose = 'verify_email' | 'change_email' | 'reset_password';

/**
 * One-time links mailed to people (email-links.ts). Only the SHA-256 of a link's secret is kept, so
 * that whoever reads the table cannot use a link; a used link keeps its row until the next link of
 * its kind for that person, so that opening it again says it was used.
 */
export interface EmailLinkTable {
  id: Generated<number>;
  user_id: number;
  /** Hex SHA-256 of the secret the link carries. */
  token_sha256: string;
  purpose: LinkPurpose;
  /** The address the link was mailed to: the one it confirms (for `change_email`, the new one). */
  email: string;
  /** ISO 8601, UTC. */
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export type EmailLink = Selectable<EmailLinkTable>;
