import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll } from 'vitest';
import { startMailCatcher, type MailCatcher } from '../../src/dev/mail-catcher.js';
import type { CookieClient } from './http-client.js';
import { startStack, type Stack } from './stack.js';
import { eventually } from './wait.js';

/** The mails the catcher took for this address, in the order sent. */
export function mailsTo(catcher: MailCatcher, email: string): ParsedMail[] {
  return catcher.mails.filter((mail) => mail.to && [mail.to].flat().some((to) => to.value.some((box) => box.address === email)));
}

/** The mails to the address once it has `count`, after waiting a little longer for one too many. */
export async function exactlyMails(catcher: MailCatcher, email: string, count: number): Promise<ParsedMail[]> {
  await eventually(`${count} mails to ${email}`, async () => (mailsTo(catcher, email).length >= count ? true : undefined));
  await sleep(300);
  return mailsTo(catcher, email);
}

/** The link to `path` in the newest mail to `email`, waiting for the mail to arrive. */
export async function linkMailedTo(catcher: MailCatcher, email: string, path: string): Promise<string> {
  return eventually(`a mail to ${email} with a link to ${path}`, async () => {
    const links = mailsTo(catcher, email).flatMap((mail) => [...(mail.text ?? '').matchAll(/https?:\/\/\S+/g)].map((match) => match[0]));
    return links.filter((link) => new URL(link).pathname === path).at(-1);
  });
}

/** Opens the link that confirms the address, mailed to it at sign-up. */
export async function confirmAddress(client: CookieClient, catcher: MailCatcher, email: string): Promise<void> {
  const response = await client.get(await linkMailedTo(catcher, email, '/email/verify'));
  if (response.status !== 200) throw new Error(`the confirmation link answered ${response.status}`);
}

/** A stack that sends its mails to `catcher`, its clock `aheadMs` ahead of the real time (0 unless a test moves it). */
export interface MailingStack {
  readonly stack: Stack;
  readonly catcher: MailCatcher;
  aheadMs: number;
}

/** A MailingStack, with the settings of `env`, started before the file's tests and closed after them (read it inside a test or hook). */
export function useMailingStack(env: Record<string, string> = {}): MailingStack {
  const started: Partial<MailingStack> & { aheadMs: number } = { aheadMs: 0 };
  beforeAll(async () => {
    const catcher = await startMailCatcher();
    Object.assign(started, { catcher });
    Object.assign(started, {
      stack: await startStack({
        env: { SMTP_URL: catcher.url, MAIL_FROM: 'athlete-sync <no-reply@example.com>', ...env },
        clock: () => new Date(Date.now() + started.aheadMs),
      }),
    });
  });
  afterAll(async () => {
    await started.stack?.close();
    await started.catcher?.close();
  });
  return started as MailingStack;
}
