import type { Db } from '../db/database.js';
import { lifetimeWords, type AccountMailer, type AccountMailWords } from './account-mails.js';
import type { AttemptLimits, RetryAfter } from './attempt-limits.js';
import { issueLink, linkState, useLink, type LinkRefusal, type LinkState } from './email-links.js';
import type { PasswordHasher } from './password.js';
import { changePasswordHash, findUserByEmail, findUserById } from './user.repository.js';
import type { User } from './user.table.js';

export type ResetRequest = { ok: true } | { ok: false; reason: 'mail_off' } | ({ ok: false; reason: 'too_many_attempts' } & RetryAfter);

/** A new password set by link: the person, under their new session generation (every session of theirs has ended). */
export type Reset = { ok: true; user: User } | { ok: false; reason: LinkRefusal };

export interface PasswordResetDependencies {
  db: Db;
  mails: AccountMailer;
  words: AccountMailWords;
  passwords: Pick<PasswordHasher, 'hash'>;
  attemptLimits: Pick<AttemptLimits, 'startPasswordReset'>;
  /** How long a link works (PASSWORD_RESET_LINK_MINUTES). */
  linkLifetimeMs: number;
  clock: () => Date;
}

/**
 * "Forgot password?": a link mailed to the account's address sets a new password. The answer to
 * asking is the same whether or not an account has the address, and takes the same time: it is given
 * after the same work for both (the input parsed, the limits counted), before the account is even
 * looked up, which happens afterwards with the mail (account-mails.ts). The address an account has is
 * confirmed, or is the one it signed up with and never confirmed (a change of address takes effect
 * only once confirmed, email-verification.ts): the link goes there either way, and using it confirms it.
 */
export function createPasswordReset({ db, mails, words, passwords, attemptLimits, linkLifetimeMs, clock }: PasswordResetDependencies) {
  const lifetime = lifetimeWords(linkLifetimeMs);

  return {
    async request(email: string, address: string): Promise<ResetRequest> {
      if (!mails.on) return { ok: false, reason: 'mail_off' };
      const wait = await attemptLimits.startPasswordReset(email, address);
      if (wait) return { ok: false, reason: 'too_many_attempts', ...wait };
      mails.later('password reset', async () => {
        const user = await findUserByEmail(db, email);
        if (!user) return undefined;
        const secret = await issueLink(db, { userId: user.id, purpose: 'reset_password', email, lifetimeMs: linkLifetimeMs }, clock());
        return words.passwordReset(email, secret, lifetime);
      });
      return { ok: true };
    },

    /** What the link would do now, for the page that asks for the new password. */
    check: (secret: unknown): Promise<LinkState> => linkState(db, secret, ['reset_password'], clock()),

    /** Uses the link: the new password is set, every session of the person ends, and their address is confirmed. */
    async reset(secret: unknown, password: string): Promise<Reset> {
      const before = await linkState(db, secret, ['reset_password'], clock());
      if (!before.ok) return before;
      const passwordHash = await passwords.hash(password);
      const now = clock();
      return db.transaction().execute(async (trx): Promise<Reset> => {
        const used = await useLink(trx, secret, ['reset_password'], now);
        if (!used.ok) return used;
        const { user_id: userId, email } = used.link;
        const user = await findUserById(trx, userId);
        if (user?.email !== email) return { ok: false, reason: 'invalid' };
        await changePasswordHash(trx, userId, passwordHash);
        // The mail reached the address: it is the person's.
        await trx
          .updateTable('users')
          .set({ email_verified_at: now.toISOString() })
          .where('id', '=', userId)
          .where('email_verified_at', 'is', null)
          .execute();
        return { ok: true, user: (await findUserById(trx, userId))! };
      });
    },
  };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
