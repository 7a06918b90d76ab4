import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountMailWords, createAccountMailer } from '../../src/accounts/account-mails.js';
import { createPasswordReset } from '../../src/accounts/password-reset.js';
import type { Db } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { PASSWORD, signedInAgain } from '../helpers/account.js';
import { signUpNewUser } from '../helpers/flows.js';
import { hiddenField, submitForm, type CookieClient } from '../helpers/http-client.js';
import { exactlyMails, linkMailedTo, mailsTo, useMailingStack } from '../helpers/mail.js';
import { startStack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

const RESET_PATH = '/password/reset';
const NEW_PASSWORD = 'a brand new password';
const app = useMailingStack({ PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: '1000' });

let unknown = 0;
const unknownAddress = () => `nobody${++unknown}-${Date.now()}@example.com`;
const askForReset = (email: string, client = app.stack.browser()) => client.postJson('/api/password/forgot', { email });

/** A new account, its client signed in, and the reset link mailed to it. */
async function personWithResetLink(): Promise<{ email: string; client: CookieClient; link: string }> {
  const client = app.stack.browser();
  const email = await signUpNewUser(client);
  expect((await askForReset(email)).status).toBe(202);
  return { email, client, link: await linkMailedTo(app.catcher, email, RESET_PATH) };
}

/** The link's page opened in a browser of its own, and its form, to send now or later. */
async function openResetForm(link: string): Promise<{ client: CookieClient; setPassword: (password?: string) => Promise<Response> }> {
  const client = app.stack.browser();
  const token = hiddenField(await (await client.get(link)).text(), '_csrf');
  const fields = { _csrf: token, link: new URL(link).searchParams.get('link')! };
  return { client, setPassword: (password = NEW_PASSWORD) => client.postForm(RESET_PATH, { ...fields, new_password: password }) };
}

/** Opens the link's page and sets the password with its form, in a browser of its own. */
async function setPasswordWith(link: string, password = NEW_PASSWORD): Promise<{ response: Response; client: CookieClient }> {
  const form = await openResetForm(link);
  return { response: await form.setPassword(password), client: form.client };
}

const signIn = (email: string, password: string) => app.stack.browser().postJson('/api/login', { email, password });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('asking for a link: the same answer whether or not an account has the address', () => {
  it('answers a known and an unknown address alike (status, body, time within noise), and mails only the known one', async () => {
    const known: string[] = [];
    for (let i = 0; i < 12; i++) known.push(await signUpNewUser(app.stack.browser()));
    const strangers = known.map(() => unknownAddress());
    const answers: Record<'known' | 'unknown', Array<{ status: number; body: string; ms: number }>> = { known: [], unknown: [] };
    const client = app.stack.browser();
    for (let i = 0; i < known.length; i++) {
      for (const [which, email] of [
        ['known', known[i]!],
        ['unknown', strangers[i]!],
      ] as const) {
        const started = performance.now();
        const response = await askForReset(email, client);
        const body = await response.text();
        answers[which].push({ status: response.status, body, ms: performance.now() - started });
      }
    }

    for (const answer of [...answers.known, ...answers.unknown]) {
      expect(answer.status).toBe(202);
      expect(answer.body).toBe(answers.known[0]!.body);
    }
    const [knownMs, unknownMs] = [median(answers.known.map((a) => a.ms)), median(answers.unknown.map((a) => a.ms))];
    // Within what a busy machine adds to a few milliseconds: what this can see is work of tens of
    // milliseconds done only for a known address (a hash, a mail sent before answering); that the
    // answer is made before any account is looked up is the test below with a store that fails.
    expect(Math.abs(knownMs - unknownMs), `medians: known ${knownMs} ms, unknown ${unknownMs} ms`).toBeLessThanOrEqual(
      Math.max(15, 0.5 * Math.max(knownMs, unknownMs)),
    );
    for (const email of known) await linkMailedTo(app.catcher, email, RESET_PATH);
    for (const email of strangers) expect(mailsTo(app.catcher, email)).toEqual([]);
  });

  it('the page says the same for both, naming the address typed', async () => {
    const email = await signUpNewUser(app.stack.browser());
    for (const typed of [email, unknownAddress()]) {
      const response = await submitForm(app.stack.browser(), '/password/forgot', '/password/forgot', { email: typed });
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain(`If an account uses <strong>${typed}</strong>, a link to set a new`);
      expect(page).toContain('It works once, for 1 hour.');
    }
    await linkMailedTo(app.catcher, email, RESET_PATH);
  });

  it('the mail says what the link does, for how long, and what to do if it was not you', async () => {
    const { email } = await personWithResetLink();
    const [, reset] = mailsTo(app.catcher, email);
    expect(reset!.subject).toBe('Set a new password for athlete-sync');
    expect(reset!.text).toContain('The link works once, for 1 hour. Setting a new password signs you out everywhere else.');
    expect(reset!.text).toContain('If you did not ask for it, ignore this mail: your password stays as it is.');
  });

  it('is limited per address, known or not: the fourth request for one address within the hour is 429, and no fourth mail goes', async () => {
    const email = await signUpNewUser(app.stack.browser());
    for (const address of [email, unknownAddress()]) {
      for (let i = 0; i < 3; i++) expect((await askForReset(address)).status).toBe(202);
      const refused = await askForReset(address);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    }
    // The sign-up's mail, and three to reset the password.
    expect(await exactlyMails(app.catcher, email, 4)).toHaveLength(4);
  });
});

describe('asking for a link, as the answer is made', () => {
  it('answers before any account is looked up: the store is read only by the mail’s work, after the answer, for a known address or not', async () => {
    let storeRead = false;
    const db = new Proxy(
      {},
      {
        get() {
          storeRead = true;
          throw new Error('the store was read before the answer');
        },
      },
    ) as unknown as Db;
    const work: Array<() => Promise<unknown>> = [];
    const reset = createPasswordReset({
      db,
      mails: { on: true, later: (_what, job) => void work.push(job), idle: async () => {} },
      words: accountMailWords('http://app.example'),
      passwords: { hash: async () => 'never used' },
      attemptLimits: { startPasswordReset: async () => undefined },
      linkLifetimeMs: 3_600_000,
      clock: () => new Date(),
    });
    expect(await reset.request('known@example.com', '192.0.2.1')).toEqual({ ok: true });
    expect(await reset.request('nobody@example.com', '192.0.2.1')).toEqual({ ok: true });
    expect(storeRead).toBe(false);
    expect(work).toHaveLength(2);
  });
});

describe('the mail’s work', () => {
  it('starts only once the request that asked for it has answered: none of its queries go before the answer, on SQLite either', async () => {
    const order: string[] = [];
    const mails = createAccountMailer({ send: async () => {} }, createLogger('silent', 'test'));
    mails.later('password reset', async () => {
      order.push('the work');
      return undefined;
    });
    // The route goes on through promises (the limits counted, the answer rendered) before it answers.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    order.push('the answer');
    await mails.idle();
    expect(order).toEqual(['the answer', 'the work']);
  });
});

describe('asking for a link, by other settings', () => {
  it('the client past PASSWORD_RESETS_PER_ADDRESS_PER_HOUR is answered 429, whatever the address', async () => {
    const limited = await startStack({
      env: { SMTP_URL: app.catcher.url, MAIL_FROM: 'a <a@example.com>', PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: '4' },
    });
    try {
      const ask = (email: string) => limited.browser().postJson('/api/password/forgot', { email });
      for (let i = 0; i < 4; i++) expect((await ask(unknownAddress())).status).toBe(202);
      const refused = await ask(unknownAddress());
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ error: 'too_many_attempts' });
    } finally {
      await limited.close();
    }
  });

  it('while mail is off (no SMTP_URL), every address is told alike that no link can be mailed', async () => {
    const mailOff = await startStack();
    try {
      const client = mailOff.browser();
      const email = await signUpNewUser(client);
      expect((await client.postJson('/api/account/email/link', {})).status).toBe(503);
      expect(await (await client.get('/')).text()).not.toContain('is not confirmed yet');
      for (const address of [email, unknownAddress()]) {
        const answer = await mailOff.browser().postJson('/api/password/forgot', { email: address });
        expect(answer.status).toBe(503);
        expect(await answer.json()).toEqual({ error: 'mail_off', message: 'This app has no mail server set up.' });
      }
      expect(await (await submitForm(mailOff.browser(), '/password/forgot', '/password/forgot', { email })).text()).toContain(
        'This app has no mail server set up, so it cannot mail you a link.',
      );
    } finally {
      await mailOff.close();
    }
  });
});

describe('the link', () => {
  it('sets the new password once, signs the person in here and ends every other session of theirs', async () => {
    const { email, client, link } = await personWithResetLink();
    const elsewhere = await signedInAgain(client, email);
    const openedTwice = await openResetForm(link);

    const { response, client: here } = await setPasswordWith(link);

    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    const dashboard = await (await here.get('/')).text();
    expect(dashboard).toContain('Your new password is set, and you are signed in.');
    expect(await (await here.get('/api/me')).json()).toMatchObject({ email, emailVerified: true });
    for (const other of [client, elsewhere]) expect((await other.get('/api/me')).status).toBe(401);
    expect((await signIn(email, PASSWORD)).status).toBe(401);
    expect((await signIn(email, NEW_PASSWORD)).status).toBe(200);

    const again = await openedTwice.setPassword('yet another password');
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link has already been used: each link works once.');
    expect((await app.stack.browser().get(link)).status).toBe(410);
    expect((await signIn(email, NEW_PASSWORD)).status).toBe(200);
  });

  it('is stored only as its secret’s SHA-256: no column holds the secret it carries', async () => {
    const { email, link } = await personWithResetLink();
    const secret = new URL(link).searchParams.get('link')!;
    const rows = await app.stack.db
      .selectFrom('email_links')
      .innerJoin('users', 'users.id', 'email_links.user_id')
      .selectAll('email_links')
      .where('users.email', '=', email)
      .execute();
    const reset = rows.find((row) => row.purpose === 'reset_password');
    expect(reset?.token_sha256).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it('works within its hour, and past it says it has expired, changing nothing', async () => {
    const { email, link } = await personWithResetLink();
    app.aheadMs = 59 * 60_000;
    try {
      const form = await openResetForm(link);
      app.aheadMs = 61 * 60_000;
      const opened = await app.stack.browser().get(link);
      expect(opened.status).toBe(410);
      expect(await opened.text()).toContain('This link has expired: it worked for 1 hour after it was mailed.');
      expect((await form.setPassword()).status).toBe(410);
    } finally {
      app.aheadMs = 0;
    }
    expect((await signIn(email, PASSWORD)).status).toBe(200);
  });

  it('a newer link replaces it; one cut short or altered is not valid; a short password is refused and the link still works', async () => {
    const { email, link: older } = await personWithResetLink();
    expect((await askForReset(email)).status).toBe(202);
    await eventually('the second link', async () => ((await linkMailedTo(app.catcher, email, RESET_PATH)) !== older ? true : undefined));
    const newer = await linkMailedTo(app.catcher, email, RESET_PATH);
    for (const refused of [older, newer.slice(0, -5), `${newer.slice(0, -1)}${newer.endsWith('A') ? 'B' : 'A'}`]) {
      const response = await app.stack.browser().get(refused);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('This link is not valid');
    }
    const short = await setPasswordWith(newer, 'short');
    expect(short.response.status).toBe(400);
    expect(await short.response.text()).toContain('New password must be at least 10 characters.');
    expect((await setPasswordWith(newer)).response.status).toBe(303);
  });
});
