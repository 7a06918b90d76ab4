import type { Generated, Insertable, Selectable } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** IANA zone name, e.g. Europe/Berlin: decides which local day an entry belongs to. */
  timezone: string;
  /** ISO 8601, UTC. */
  created_at: string;
  /** 1 while the person wants a mail when their connection needs them (src/notices/), 0 once they turned it off. */
  connection_mail: Generated<number>;
  /**
   * Raised by one each time every session of the person is ended (a new password, sign out
   * everywhere). A session holds the generation it was started under and is signed in only while
   * that is still the person's (web/authentication.ts).
   */
  session_generation: Generated<number>;
  /** Why the generation last moved on, so an ended session can tell its person (web/authentication.ts); null before any did. */
  sessions_ended_by: SessionsEndedBy | null;
  /**
   * When the person confirmed they receive mail at `email` (ISO 8601, UTC), by a link mailed there;
   * null until then, as for every account made before addresses were confirmed.
   */
  email_verified_at: string | null;
}

export type SessionsEndedBy = 'password_changed' | 'signed_out_everywhere';

export type User = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
