import type { Generated, Selectable } from 'kysely';

/** What a notice tells the person: their connection needs reconnecting, lost a scope, or will lapse soon. */
export type NoticeKind = 'needs_reconnect' | 'scope_missing' | 'expiring';

/**
 * Sent, or settled without a mail: the person turned these mails off, their address is not
 * confirmed, mail is off (no SMTP_URL), the incident was over before its mail went (they
 * reconnected), or the mail server refused it for good.
 */
export type NoticeOutcome = 'sent' | 'turned_off' | 'unverified' | 'mail_off' | 'resolved' | 'refused';

/**
 * The notification outbox (docs/architecture.md): one row per incident that only the person can fix,
 * written in the same transaction as the change of the connection that is the incident, and sent
 * afterwards by the workers. The unique (user_id, incident) makes an incident's notice one row
 * however often it is noticed; a row is claimed before its mail is sent and settled after, so a
 * crash or a retry neither loses it nor sends it twice.
 */
export interface ConnectionNoticeTable {
  id: Generated<number>;
  user_id: number;
  /** The grant the incident happened to: a Reconnect makes a new one, and ends the incident. */
  grant_id: string;
  /** `<kind>:<grant id>` (and `:<scope>` for a missing scope): what makes two noticings one incident. */
  incident: string;
  kind: NoticeKind;
  /** needs_reconnect: its StatusReason; scope_missing: the scope; expiring: when the refresh token expires (ISO 8601). */
  detail: string | null;
  /** When the incident happened (ISO 8601, UTC): the mail says since when. */
  created_at: string;
  /** Null while the mail is still to be sent. */
  outcome: NoticeOutcome | null;
  settled_at: string | null;
  /** Sending attempts so far (each claim is one). */
  attempts: Generated<number>;
  /** When the notice may be claimed: at once, after a claim's lease runs out, or after a failed attempt's backoff. */
  next_attempt_at: string;
  /** Who claimed it last (a random id per attempt): only that attempt may settle it. */
  claim_owner: string | null;
  /** The mail server's or the connection's last error, for the operator. */
  last_error: string | null;
}

export type ConnectionNotice = Selectable<ConnectionNoticeTable>;
