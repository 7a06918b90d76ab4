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
}

export type User = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
