import type { Generated, Insertable, Selectable } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** IANA zone name, e.g. Europe/Berlin: decides which local day a meal belongs to. */
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
}

export type User = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
