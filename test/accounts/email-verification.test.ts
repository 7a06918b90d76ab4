import { describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/account.js';
import { signedInToExistingAccount, signUpNewUser } from '../helpers/flows.js';
import { submitForm, type CookieClient } from '../helpers/http-client.js';
import { exactlyMails as exactlyMailsTo, linkMailedTo, mailsTo, useMailingStack } from '../helpers/mail.js';
import { eventually } from '../helpers/wait.js';

const VERIFY_PATH = '/email/verify';
const CONFIRM_SUBJECT = 'Confirm your email address for athlete-sync';
const app = useMailingStack();

const emailVerified = async (client: CookieClient) =>
  ((await (await client.get('/api/me')).json()) as { emailVerified: boolean }).emailVerified;
const dashboardOf = async (client: CookieClient) => (await client.get('/')).text();
const UNCONFIRMED = 'is not confirmed yet, so this app sends it no mail about your connection.';
const resend = (client: CookieClient) => submitForm(client, '/', '/account/email/link', { next: '/' });

const exactlyMails = (email: string, count: number) => exactlyMailsTo(app.catcher, email, count);

describe('a new account', () => {
  it('is mailed exactly one link to confirm its address, which the dashboard asks for until it is opened', async () => {
    const client = app.stack.browser();
    const email = await signUpNewUser(client);
    const [mail, ...more] = await exactlyMails(email, 1);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe(CONFIRM_SUBJECT);
    expect(mail!.text).toContain('The link works once, for 24 hours.');
    expect(await emailVerified(client)).toBe(false);
    expect(await dashboardOf(client)).toContain(UNCONFIRMED);

    const opened = await app.stack.browser().get(await linkMailedTo(app.catcher, email, VERIFY_PATH));

    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain(`<strong>${email}</strong> is confirmed`);
    expect(await emailVerified(client)).toBe(true);
    expect(await dashboardOf(client)).not.toContain(UNCONFIRMED);
    expect(await (await client.get('/account')).text()).toContain(`<strong>${email}</strong> is confirmed.`);
    const again = await client.postJson('/api/account/email/link', {});
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'already_verified' });
  });

  it('signed up on the page, is mailed one link too', async () => {
    const email = `page-${Date.now()}@example.com`;
    const fields = { email, password: PASSWORD, timezone: 'Europe/Berlin' };
    expect((await submitForm(app.stack.browser(), '/signup', '/signup', fields)).status).toBe(303);
    expect((await exactlyMails(email, 1)).map((mail) => mail.subject)).toEqual([CONFIRM_SUBJECT]);
  });
});

describe('the link', () => {
  it('works once: opened again, it says it was used', async () => {
    const email = await signUpNewUser(app.stack.browser());
    const link = await linkMailedTo(app.catcher, email, VERIFY_PATH);
    expect((await app.stack.browser().get(link)).status).toBe(200);
    const again = await app.stack.browser().get(link);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link has already been used: each link works once.');
  });

  it('past 24 hours says it has expired and confirms nothing', async () => {
    const client = app.stack.browser();
    const email = await signUpNewUser(client);
    const link = await linkMailedTo(app.catcher, email, VERIFY_PATH);
    app.aheadMs = 24 * 3_600_000 + 60_000;
    try {
      const opened = await app.stack.browser().get(link);
      expect(opened.status).toBe(410);
      expect(await opened.text()).toContain('This link has expired: it worked for 24 hours after it was mailed.');
    } finally {
      app.aheadMs = 0;
    }
    expect(await emailVerified(client)).toBe(false);
  });

  it('is replaced by the one mailed again; mailing again is limited to 5 links an account an hour', async () => {
    const client = app.stack.browser();
    const email = await signUpNewUser(client);
    const first = await linkMailedTo(app.catcher, email, VERIFY_PATH);
    for (let i = 0; i < 4; i++) {
      const sent = await resend(client);
      expect(sent.status).toBe(303);
      expect(await dashboardOf(client)).toContain(`We mailed a link to ${email}. It works once, for 24 hours.`);
    }
    const refused = await resend(client);
    expect(refused.status).toBe(303);
    expect(await dashboardOf(client)).toContain('Too many attempts. Please try again in');
    const api = await client.postJson('/api/account/email/link', {});
    expect(api.status).toBe(429);
    expect(Number(api.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await exactlyMails(email, 5)).toHaveLength(5);

    expect((await app.stack.browser().get(first)).status).toBe(404);
    expect((await app.stack.browser().get(await linkMailedTo(app.catcher, email, VERIFY_PATH))).status).toBe(200);
    expect(await emailVerified(client)).toBe(true);
  });
});

describe('an account made before addresses were confirmed', () => {
  it('is unconfirmed until its owner opens a link, and the app says so', async () => {
    const email = `existing-${Date.now()}@example.com`;
    const client = await signedInToExistingAccount(app.stack, email);
    expect(await emailVerified(client)).toBe(false);
    expect(await dashboardOf(client)).toContain(UNCONFIRMED);
    expect((await resend(client)).status).toBe(303);
    expect((await client.get(await linkMailedTo(app.catcher, email, VERIFY_PATH))).status).toBe(200);
    expect(await emailVerified(client)).toBe(true);
  });
});

describe('changing the address', () => {
  const change = (client: CookieClient, email: string, password = PASSWORD) =>
    submitForm(client, '/account', '/account/email', { email, password });

  it('takes effect when the new address opens its link; the old address is told', async () => {
    const client = app.stack.browser();
    const old = await signUpNewUser(client);
    const changed = `changed-${Date.now()}@example.com`;
    expect((await change(client, changed, 'not my password')).status).toBe(303);
    expect((await change(client, old)).status).toBe(303);
    expect(mailsTo(app.catcher, changed)).toEqual([]);

    expect((await change(client, changed)).status).toBe(303);
    expect(await (await client.get('/account')).text()).toContain(`Your account keeps ${old} until you open it.`);
    const link = await linkMailedTo(app.catcher, changed, VERIFY_PATH);
    expect(mailsTo(app.catcher, changed).map((mail) => mail.subject)).toEqual(['Confirm your new email address for athlete-sync']);
    expect(await (await client.get('/api/me')).json()).toMatchObject({ email: old });

    const opened = await app.stack.browser().get(link);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain(`You now sign in with <strong>${changed}</strong>`);
    expect(await (await client.get('/api/me')).json()).toMatchObject({ email: changed, emailVerified: true });
    const told = await eventually('the mail to the old address', async () =>
      mailsTo(app.catcher, old).find((mail) => mail.subject === 'Your athlete-sync address was changed'),
    );
    expect(told.text).toContain(`Your athlete-sync account now uses ${changed}`);
    expect((await app.stack.browser().postJson('/api/login', { email: changed, password: PASSWORD })).status).toBe(200);
    expect((await app.stack.browser().postJson('/api/login', { email: old, password: PASSWORD })).status).toBe(401);
  });

  it.each([
    [
      'an address that is not one',
      () => 'ana at example.com',
      PASSWORD,
      'email',
      'New email address must be an email address, such as ana@example.com.',
    ],
    ['a wrong password', () => `typed-${Date.now()}@example.com`, 'not my password', 'password', 'That is not your current password.'],
    ['the address the account has', (old: string) => old, PASSWORD, 'email', 'That address is already yours or another account’s.'],
  ])(
    'refused for %s, comes back to the account page once, the address typed kept and the problem next to its field',
    async (_case, typedFor, password, field, problem) => {
      const client = app.stack.browser();
      const old = await signUpNewUser(client);
      const typed = typedFor(old);
      const refused = await change(client, typed, password);
      expect(refused.status).toBe(303);
      expect(refused.headers.get('location')).toBe('/account#email');

      const page = await (await client.get('/account')).text();
      expect(page).toContain(`Your address was not changed: ${problem}`);
      expect(page).toContain(`<span class="field-problem" id="email-change-${field}-problem">${problem}</span>`);
      expect(page).toMatch(
        new RegExp(`<input name="email" value="${typed.replaceAll('.', '\\.')}" type="email"[^>]* id="email-change-email"`),
      );
      expect(page).not.toMatch(/<input name="password" value="[^"]/);
      expect(await (await client.get('/account')).text()).not.toContain('was not changed');
      expect(await (await client.get('/api/me')).json()).toMatchObject({ email: old });
    },
  );

  it('mails the new address within the same 5 links an account an hour: past them, 429 and no mail', async () => {
    const client = app.stack.browser();
    await signUpNewUser(client);
    const stamp = Date.now();
    const wanted = [0, 1, 2, 3, 4].map((n) => `limit-${String(n)}-${String(stamp)}@example.com`);
    for (const email of wanted.slice(0, 4)) expect((await change(client, email)).status).toBe(303);
    const refused = await change(client, wanted[4]!);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await refused.text()).toContain('Too many attempts. Please try again in');
    expect(await exactlyMails(wanted[3]!, 1)).toHaveLength(1);
    expect(mailsTo(app.catcher, wanted[4]!)).toEqual([]);
  });

  it('to an address another account took meanwhile changes nothing', async () => {
    const client = app.stack.browser();
    const old = await signUpNewUser(client);
    const wanted = `wanted-${Date.now()}@example.com`;
    expect((await change(client, wanted)).status).toBe(303);
    const link = await linkMailedTo(app.catcher, wanted, VERIFY_PATH);
    expect((await app.stack.browser().postJson('/api/signup', { email: wanted, password: PASSWORD, timezone: 'UTC' })).status).toBe(201);
    const opened = await app.stack.browser().get(link);
    expect(opened.status).toBe(409);
    expect(await opened.text()).toContain('Another account has used this address since you asked.');
    expect(await (await client.get('/api/me')).json()).toMatchObject({ email: old });
  });
});
