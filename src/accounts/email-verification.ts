import type { Db } from '../db/database.js';
import type { AccountMailer, AccountMailWords } from './account-mails.js';
import { lifetimeWords } from './account-mails.js';
import type { AttemptLimits, RetryAfter } from './attempt-limits.js';
import { issueLink, useLink, type LinkRefusal } from './email-links.js';
import type { LinkPurpose } from './email-link.table.js';
import { findUserByEmail, findUserById, lockUser } from './user.repository.js';
import type { User } from './user.table.js';

/** A link asked for: on its way, or why not. */
export type LinkRequest =
  | { ok: true }
  | { ok: false; reason: 'mail_off' | 'already_verified' | 'email_taken' }
  | ({ ok: false; reason: 'too_many_attempts' } & RetryAfter);

/** What opening a link to confirm an address did. */
export type Confirmation =
  | { ok: true; outcome: 'verified'; email: string }
  | { ok: true; outcome: 'changed'; email: string; previous: string }
  | { ok: false; reason: LinkRefusal | 'email_taken' };

export interface EmailVerificationDependencies {
  db: Db;
  mails: AccountMailer;
  words: AccountMailWords;
  attemptLimits: Pick<AttemptLimits, 'startVerificationMail'>;
  /** How long a link works (EMAIL_VERIFICATION_LINK_HOURS). */
  linkLifetimeMs: number;
  clock: () => Date;
}

const CONFIRMING: readonly LinkPurpose[] = ['verify_email', 'change_email'];

/**
 * Confirmed addresses: a link mailed to the address proves the person reads mail there. Sign-up
 * mails one; the person may ask for another (counted per account); a change of address takes effect
 * only when the new address confirms it, and the old address is then told. Until confirmed, no
 * connection mail is sent to the address (send-notices.ts).
 */
export function createEmailVerification({ db, mails, words, attemptLimits, linkLifetimeMs, clock }: EmailVerificationDependencies) {
  const lifetime = lifetimeWords(linkLifetimeMs);

  async function mailLink(user: Pick<User, 'id'>, purpose: LinkPurpose, email: string): Promise<LinkRequest> {
    if (!mails.on) return { ok: false, reason: 'mail_off' };
    const wait = await attemptLimits.startVerificationMail(user.id);
    if (wait) return { ok: false, reason: 'too_many_attempts', ...wait };
    mails.later(purpose, async () => {
      const secret = await issueLink(db, { userId: user.id, purpose, email, lifetimeMs: linkLifetimeMs }, clock());
      return purpose === 'change_email' ? words.emailChange(email, secret, lifetime) : words.verification(email, secret, lifetime);
    });
    return { ok: true };
  }

  return {
    /** Mails a link that confirms the account's address, unless it is confirmed already. */
    async sendLink(user: Pick<User, 'id' | 'email' | 'email_verified_at'>): Promise<LinkRequest> {
      if (user.email_verified_at !== null) return { ok: false, reason: 'already_verified' };
      return mailLink(user, 'verify_email', user.email);
    },

    /** Mails a link to `email` that, opened, makes it the account's address (already confirmed). */
    async requestChange(user: Pick<User, 'id' | 'email'>, email: string): Promise<LinkRequest> {
      if (email === user.email) return { ok: false, reason: 'email_taken' };
      if (await findUserByEmail(db, email)) return { ok: false, reason: 'email_taken' };
      return mailLink(user, 'change_email', email);
    },

    /** Uses the link: the address it was mailed to is confirmed, and for a change becomes the account's, the old one told. */
    async confirm(secret: unknown): Promise<Confirmation> {
      const now = clock();
      const confirmation = await db.transaction().execute(async (trx): Promise<Confirmation> => {
        const used = await useLink(trx, secret, CONFIRMING, now);
        if (!used.ok) return used;
        const { user_id: userId, email, purpose } = used.link;
        await lockUser(trx, userId);
        const user = await findUserById(trx, userId);
        // An address confirmed once the account has moved on from it confirms nothing.
        if (!user || (purpose === 'verify_email' && user.email !== email)) return { ok: false, reason: 'invalid' };
        if (purpose === 'change_email' && (await findUserByEmail(trx, email))) return { ok: false, reason: 'email_taken' };
        await trx
          .updateTable('users')
          .set({ email, email_verified_at: user.email === email ? (user.email_verified_at ?? now.toISOString()) : now.toISOString() })
          .where('id', '=', userId)
          .execute();
        return purpose === 'change_email'
          ? { ok: true, outcome: 'changed', email, previous: user.email }
          : { ok: true, outcome: 'verified', email };
      });
      if (confirmation.ok && confirmation.outcome === 'changed') {
        const { previous, email } = confirmation;
        mails.later('address changed', () => Promise.resolve(words.emailChanged(previous, email)));
      }
      return confirmation;
    },
  };
}

export type EmailVerification = ReturnType<typeof createEmailVerification>;
