import type { Db } from '../db/database.js';
import type { PasswordChangeInput, SignInInput, SignUpInput } from './account.schemas.js';
import type { AttemptLimits, RetryAfter } from './attempt-limits.js';
import type { EmailVerification } from './email-verification.js';
import type { PasswordHasher } from './password.js';
import { AccountGoneError, changePasswordHash, findUserByEmail, insertUser, updatePasswordHash } from './user.repository.js';
import type { User } from './user.table.js';

type TooManyAttempts = { ok: false; reason: 'too_many_attempts' } & RetryAfter;

export type SignUpResult = { ok: true; user: User } | { ok: false; reason: 'email_taken' } | TooManyAttempts;
export type SignInResult = { ok: true; user: User } | { ok: false; reason: 'invalid_credentials' } | TooManyAttempts;
export type PasswordCheck = { ok: true } | { ok: false; reason: 'wrong_password' } | TooManyAttempts;
/** A changed password: every session of the person ended, and the generation the one that changed it goes on under. */
export type PasswordChange = { ok: true; sessionGeneration: number } | Exclude<PasswordCheck, { ok: true }>;

export interface AccountsDependencies {
  db: Db;
  passwords: PasswordHasher;
  attemptLimits: AttemptLimits;
  /** Mails a new account the link that confirms its address. */
  verification: Pick<EmailVerification, 'sendLink'>;
  /**
   * Addresses nobody may sign up with: those in ADMIN_EMAILS. An unconfirmed address still signs in,
   * so a listed address that had no account yet would otherwise go to whoever signed up with it first.
   */
  reservedEmails: ReadonlySet<string>;
  clock: () => Date;
}

/** Signing up (which mails the link that confirms the address) and signing in, each counted against the limits of the address it comes from; each success starts a session. */
export function createAccounts({ db, passwords, attemptLimits, verification, reservedEmails, clock }: AccountsDependencies) {
  const tooManyAttempts = (wait: RetryAfter): TooManyAttempts => ({ ok: false, reason: 'too_many_attempts', ...wait });

  /**
   * The signed-in person's password, before a change only they may make (a new password, deleting
   * the account). Counted like a sign-in, so that a session left open cannot be used to guess it.
   */
  async function confirmPassword(user: User, password: string, address: string): Promise<PasswordCheck> {
    const wait = await attemptLimits.startSignIn(user.email, address);
    if (wait) return tooManyAttempts(wait);
    if (!(await passwords.verify(password, user.password_hash))) return { ok: false, reason: 'wrong_password' };
    await attemptLimits.signInSucceeded(user.email, address);
    return { ok: true };
  }

  return {
    async signUp(input: SignUpInput, address: string): Promise<SignUpResult> {
      const wait = (await attemptLimits.startSignUp(address)) ?? (await attemptLimits.startSession(address));
      if (wait) return tooManyAttempts(wait);
      if (reservedEmails.has(input.email)) return { ok: false, reason: 'email_taken' };
      const user = await insertUser(db, {
        email: input.email,
        password_hash: await passwords.hash(input.password),
        timezone: input.timezone,
        created_at: clock().toISOString(),
      });
      if (!user) return { ok: false, reason: 'email_taken' };
      await verification.sendLink(user);
      return { ok: true, user };
    },

    /** The user whose email and password these are; a failure never says which was wrong. */
    async signIn(input: SignInInput, address: string): Promise<SignInResult> {
      const wait = await attemptLimits.startSignIn(input.email, address);
      if (wait) return tooManyAttempts(wait);
      const user = await findUserByEmail(db, input.email);
      const verified = user
        ? await passwords.verify(input.password, user.password_hash)
        : await passwords.verifyForUnknownUser(input.password);
      if (!user || !verified) return { ok: false, reason: 'invalid_credentials' };
      await attemptLimits.signInSucceeded(input.email, address);
      const sessionWait = await attemptLimits.startSession(address);
      if (sessionWait) return tooManyAttempts(sessionWait);
      if (passwords.isOutdated(user.password_hash)) {
        await updatePasswordHash(db, user.id, await passwords.hash(input.password));
      }
      return { ok: true, user };
    },

    confirmPassword,

    async changePassword(user: User, input: PasswordChangeInput, address: string): Promise<PasswordChange> {
      const check = await confirmPassword(user, input.current_password, address);
      if (!check.ok) return check;
      const sessionGeneration = await changePasswordHash(db, user.id, await passwords.hash(input.new_password));
      if (sessionGeneration === undefined) throw new AccountGoneError();
      return { ok: true, sessionGeneration };
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
