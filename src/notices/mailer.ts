import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  headers: Record<string, string>;
  /** The same for every attempt at one notice, so that a mail sent twice can be recognised as one. */
  messageId: string;
}

/** How the mail server answered a mail it did not take; `permanent` for an SMTP 5xx (RFC 5321 §4.2.1). */
export class MailRefused extends Error {
  override name = 'MailRefused';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface Mailer {
  /** Resolves once the mail server took the mail; throws MailRefused otherwise. */
  send(mail: Mail): Promise<void>;
}

/** Beyond these a stalled mail server is given up on and the notice tried again later (a claim lasts longer). */
export const MAIL_TIMEOUTS_MS = { connection: 10_000, greeting: 10_000, socket: 30_000 } as const;

/** Mail through SMTP_URL, from MAIL_FROM; undefined when SMTP_URL is unset: mail is off. */
export function createMailer(mail: Config['mail']): Mailer | undefined {
  if (mail.smtpUrl === undefined) return undefined;
  const transport = nodemailer.createTransport(
    {
      url: mail.smtpUrl,
      connectionTimeout: MAIL_TIMEOUTS_MS.connection,
      greetingTimeout: MAIL_TIMEOUTS_MS.greeting,
      socketTimeout: MAIL_TIMEOUTS_MS.socket,
    },
    { from: mail.from },
  );
  return {
    async send(message) {
      try {
        await transport.sendMail(message);
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        throw new MailRefused(error instanceof Error ? error.message : String(error), code !== undefined && code >= 500);
      }
    },
  };
}
