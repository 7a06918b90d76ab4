import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Mail, Mailer } from '../notices/mailer.js';

/** Where each link mailed to a person leads, on APP_BASE_URL. */
export const VERIFY_EMAIL_PATH = '/email/verify';
export const RESET_PASSWORD_PATH = '/password/reset';

/** The mails about the account itself, in plain words: each says what its link does, for how long, and what to do if it was not you. */
export interface AccountMailWords {
  verification(to: string, secret: string, lifetime: string): Mail;
  emailChange(to: string, secret: string, lifetime: string): Mail;
  emailChanged(to: string, newEmail: string): Mail;
  passwordReset(to: string, secret: string, lifetime: string): Mail;
}

export function accountMailWords(appBaseUrl: string): AccountMailWords {
  const link = (path: string, secret: string) => `${appBaseUrl}${path}?${new URLSearchParams({ link: secret }).toString()}`;
  const mail = (to: string, subject: string, lines: string[]): Mail => ({
    to,
    subject,
    text: [...lines, ''].join('\n'),
    // A new one each time: two mails of one kind are two mails, each with its own link.
    messageId: `<account-${randomUUID()}@${new URL(appBaseUrl).hostname}>`,
    // RFC 3834: no auto-reply to this one.
    headers: { 'Auto-Submitted': 'auto-generated' },
  });
  return {
    verification: (to, secret, lifetime) =>
      mail(to, 'Confirm your email address for athlete-sync', [
        'Confirm that this is your address, so that athlete-sync may mail you when your connection to the Athlete Data Service needs you:',
        '',
        link(VERIFY_EMAIL_PATH, secret),
        '',
        `The link works once, for ${lifetime}.`,
        'If you did not sign up for athlete-sync, ignore this mail: nothing is sent to this address until it is confirmed.',
      ]),
    emailChange: (to, secret, lifetime) =>
      mail(to, 'Confirm your new email address for athlete-sync', [
        'You asked athlete-sync to use this address from now on. Confirm it with this link, and it becomes the address you sign in with:',
        '',
        link(VERIFY_EMAIL_PATH, secret),
        '',
        `The link works once, for ${lifetime}. Until then, your account keeps its old address.`,
        'If you did not ask for this, ignore this mail: nothing changes.',
      ]),
    emailChanged: (to, newEmail) =>
      mail(to, 'Your athlete-sync address was changed', [
        `Your athlete-sync account now uses ${newEmail}: you sign in with it, and mails go there, no longer here.`,
        '',
        'If you did not change it, someone else may have your password: reset it from the sign-in page with the new address, or write to whoever runs this app.',
      ]),
    passwordReset: (to, secret, lifetime) =>
      mail(to, 'Set a new password for athlete-sync', [
        'Someone, probably you, asked to set a new password for your athlete-sync account. Set one here:',
        '',
        link(RESET_PASSWORD_PATH, secret),
        '',
        `The link works once, for ${lifetime}. Setting a new password signs you out everywhere else.`,
        'If you did not ask for it, ignore this mail: your password stays as it is.',
      ]),
  };
}

/** A lifetime in words: "24 hours", "1 hour", "30 minutes". */
export function lifetimeWords(ms: number): string {
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const minutes = Math.round(ms / 60_000);
  return minutes % 60 === 0 ? count(minutes / 60, 'hour') : count(minutes, 'minute');
}

/**
 * Sends account mails after the request that asked for them has been answered: a request never
 * waits for the mail server, and the answer cannot tell whether a mail went (password-reset.ts). A
 * mail the server does not take is logged, not retried: the person asks again. Undefined `mailer`:
 * mail is off.
 */
export interface AccountMailer {
  /** Whether mails go anywhere at all (SMTP_URL is set). */
  readonly on: boolean;
  /**
   * Runs `work` (which finds out whether and what to mail) in the background, once the request under
   * way has answered, and sends what it gives.
   */
  later(what: string, work: () => Promise<Mail | undefined>): void;
  /** Resolves once every mail started so far is sent or given up on (the tests; shutting down). */
  idle(): Promise<void>;
}

export function createAccountMailer(mailer: Mailer | undefined, logger: Logger): AccountMailer {
  const log = logger.child({ module: 'account-mails' });
  const running = new Set<Promise<void>>();
  return {
    on: mailer !== undefined,
    later(what, work) {
      if (mailer === undefined) return;
      const task = (async () => {
        // After the request that asked has answered: its queries would otherwise go first, in the
        // answer's time (better-sqlite3 runs them on this thread), and tell whether an account has the address.
        await new Promise((resolve) => setImmediate(resolve));
        const mail = await work();
        if (mail) await mailer.send(mail);
      })()
        .catch((error: unknown) => log.warn({ err: error, what }, 'account mail not sent'))
        .finally(() => running.delete(task));
      running.add(task);
    },
    async idle() {
      await Promise.all([...running]);
    },
  };
}
