import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keepConnectionsAlive } from '../../src/connections/keep-alive.js';
import { KINDS } from '../../src/kinds.js';
import { startMailCatcher, type MailCatcher } from '../../src/dev/mail-catcher.js';
import type { ParsedMail } from 'mailparser';
import { createLogger } from '../../src/logger.js';
import { createMailer } from '../../src/notices/mailer.js';
import { sendDueNotices, type NoticeSendingDependencies } from '../../src/notices/send-notices.js';
import { createUnsubscribeLinks } from '../../src/notices/unsubscribe-link.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import { sendJson } from '../helpers/account.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type CookieClient } from '../helpers/http-client.js';
import { workload, writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { confirmAddress, linkMailedTo, mailsTo as mailsToAddress } from '../helpers/mail.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

const MAIL_FROM = 'athlete-sync <no-reply@example.com>';
/** The token key before the last rotation: in TOKEN_ENCRYPTION_PREVIOUS_KEYS. */
const PREVIOUS_KEY = randomBytes(32);
/** What the mails call the kind the tests write to. */
const WORKLOAD_TITLE = KINDS.find((kind) => kind.name === workload.name)!.title;
let catcher: MailCatcher;
let stack: Stack;
const workers: Running[] = [];

beforeAll(async () => {
  catcher = await startMailCatcher();
  stack = await startStack({ env: { SMTP_URL: catcher.url, MAIL_FROM, TOKEN_ENCRYPTION_PREVIOUS_KEYS: PREVIOUS_KEY.toString('base64') } });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGKILL')));
  catcher.answer = 'take';
});
afterAll(async () => {
  await stack.close();
  await catcher.close();
});

interface Person {
  id: number;
  email: string;
  client: CookieClient;
  athlete: string;
}

let athletes = 0;

/** A person signed up and connected, who confirmed their address unless told otherwise. */
async function connectedPerson({ confirmed = true } = {}): Promise<Person> {
  const athlete = `Athlete ${++athletes}`;
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  const email = await signUpNewUser(client, 'Asia/Kathmandu');
  if (confirmed) await confirmAddress(client, catcher, email);
  expect((await connect(client)).status).toBe(303);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { id, email, client, athlete };
}

/** The service revokes the person's grant (a stolen refresh token used twice), and a sync job finds out. */
async function revokeAndSync(person: Person): Promise<void> {
  const stolen = (await stack.storedGrant(person.id))!.refreshToken;
  for (let i = 0; i < 2; i++) await stack.presentRefreshToken(stolen);
  await writeDay(person.client, '2026-03-10');
  expect(await sendEntry(stack.sendDependencies(), { userId: person.id, kind: workload.syncKind, subject: '2026-03-10' })).toBe(
    'waiting-for-connection',
  );
}

function noticeSending(): NoticeSendingDependencies {
  const unsubscribeLinks = createUnsubscribeLinks(stack.config.tokenEncryption, stack.appUrl);
  const mailer = createMailer(stack.config.mail);
  return { db: stack.db, mailer, appBaseUrl: stack.appUrl, unsubscribeLinks, clock: () => new Date(), logger: createLogger('silent') };
}

function sendNotices(clock: () => Date = () => new Date()) {
  return sendDueNotices({ ...noticeSending(), clock });
}

/** The link of a mail's List-Unsubscribe header, as a mail client reads it: unfolded (RFC 5322 §2.2.3), in angle brackets (RFC 2369). */
function unsubscribeLinkOf(mail: ParsedMail): string {
  const line = mail.headerLines.find((header) => header.key === 'list-unsubscribe')?.line ?? '';
  return /^List-Unsubscribe:\s*<([^>]+)>$/.exec(line.replace(/\r\n(?=[ \t])/g, ''))?.[1] ?? '';
}

/** The connection mails to the person (each has List-Unsubscribe; the mail that confirms the address has none). */
const mailsTo = (person: Person) =>
  mailsToAddress(catcher, person.email).filter((mail) => mail.headerLines.some((header) => header.key === 'list-unsubscribe'));

async function noticeOutcomes(person: Person) {
  return await stack.db.selectFrom('connection_notices').select(['kind', 'outcome']).where('user_id', '=', person.id).execute();
}

describe('a mail when the connection needs the person', () => {
  it('one mail per incident when the service revokes the grant: plain words, since when, and a link that reconnects', async () => {
    const person = await connectedPerson();
    await revokeAndSync(person);
    await revokeAndSync(person);

    expect(await sendNotices()).toBe(1);
    expect(await sendNotices()).toBe(0);

    const [mail, ...more] = mailsTo(person);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Your data has stopped syncing to the Athlete Data Service');
    expect(mail!.from?.value).toEqual([{ name: 'athlete-sync', address: 'no-reply@example.com' }]);
    expect(mail!.text).toMatch(/^Since \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(Asia\/Kathmandu\), athlete-sync cannot keep your data/);
    expect(mail!.text).toContain("no longer accepts this app's access: it was withdrawn or has ended.");
    expect(mail!.text).toContain(`Reconnect here: ${stack.appUrl}/connect`);
    expect(unsubscribeLinkOf(mail!)).toMatch(new RegExp(`^${stack.appUrl}/mail/unsubscribe\\?`));
    expect(mail!.text).toContain(`To stop these mails: ${unsubscribeLinkOf(mail!)}`);
    expect(mail!.text).not.toMatch(/sbx_(at|rt|code)_|code=|state=/);

    const link = mail!.text!.match(/Reconnect here: (\S+)/)![1]!;
    const toService = await person.client.get(link);
    expect(toService.status).toBe(303);
    const authorize = await fetch(toService.headers.get('location')!, { redirect: 'manual' });
    expect((await person.client.get(authorize.headers.get('location')!)).status).toBe(303);
    expect(await (await person.client.get('/api/me')).json()).toMatchObject({ connection: { status: 'connected' } });
  });

  it('one mail when the refresh token expires within 7 days (§2.1), however often it is noticed', async () => {
    await stack.changeSandbox({ refreshTokenTtlS: 3 * 24 * 3600, rotateRefreshTokens: false });
    try {
      const person = await connectedPerson();
      for (let run = 0; run < 3; run++)
        await keepConnectionsAlive(stack.db, stack.accessTokens(), () => new Date(), createLogger('silent'));
      expect(await sendNotices()).toBe(1);
      const [mail, ...more] = mailsTo(person);
      expect(more).toEqual([]);
      expect(mail!.subject).toBe('Reconnect soon to keep syncing with the Athlete Data Service');
      expect(mail!.text).toMatch(/permission for this app ends at .* \(Asia\/Kathmandu\)\./);
    } finally {
      await stack.changeSandbox({ refreshTokenTtlS: null, rotateRefreshTokens: true });
    }
  });

  it('one mail when the service withdraws a scope the grant held', async () => {
    const person = await connectedPerson();
    await stack.changeSandbox({ withdrawnScopes: [workload.scope] });
    try {
      await writeDay(person.client, '2026-03-12');
      for (let run = 0; run < 2; run++)
        await sendEntry(stack.sendDependencies(), { userId: person.id, kind: workload.syncKind, subject: '2026-03-12' });
    } finally {
      await stack.changeSandbox({ withdrawnScopes: [] });
    }
    expect(await sendNotices()).toBe(1);
    const [mail, ...more] = mailsTo(person);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe(`${WORKLOAD_TITLE} has stopped syncing to the Athlete Data Service`);
  });

  it('none once the person turned them off (the API or the account page); the notice is settled all the same', async () => {
    const person = await connectedPerson();
    const page = await (await person.client.get('/account')).text();
    expect(page).toContain('name="connection_mail" checked');
    expect((await person.client.postForm('/account/mail', { _csrf: hiddenField(page, '_csrf') })).status).toBe(303);
    expect(await (await person.client.get('/api/me')).json()).toMatchObject({ connectionMail: false });
    await revokeAndSync(person);
    expect(await sendNotices()).toBe(0);
    expect(mailsTo(person)).toEqual([]);
    expect(await noticeOutcomes(person)).toEqual([{ kind: 'needs_reconnect', outcome: 'turned_off' }]);

    expect((await sendJson(person.client, 'PATCH', '/api/account', { connectionMail: true })).status).toBe(200);
    for (const body of [{ connectionMail: 'yes' }, {}, { connectionMail: true, extra: 1 }]) {
      expect((await sendJson(person.client, 'PATCH', '/api/account', body)).status).toBe(400);
    }
  });

  it('none to an address its owner has not confirmed; once confirmed, the next incident is mailed', async () => {
    const person = await connectedPerson({ confirmed: false });
    await linkMailedTo(catcher, person.email, '/email/verify');
    expect(mailsToAddress(catcher, person.email).map((mail) => mail.subject)).toEqual(['Confirm your email address for athlete-sync']);
    await revokeAndSync(person);
    expect(await sendNotices()).toBe(0);
    expect(mailsTo(person)).toEqual([]);
    expect(await noticeOutcomes(person)).toEqual([{ kind: 'needs_reconnect', outcome: 'unverified' }]);

    await confirmAddress(person.client, catcher, person.email);
    expect((await connect(person.client)).status).toBe(303);
    await revokeAndSync(person);
    expect(await sendNotices()).toBe(1);
    expect(mailsTo(person).map((mail) => mail.subject)).toEqual(['Your data has stopped syncing to the Athlete Data Service']);
  });

  it('none while mail is off (no SMTP_URL): the notice is settled without one', async () => {
    const person = await connectedPerson();
    await revokeAndSync(person);
    expect(await sendDueNotices({ ...noticeSending(), mailer: undefined })).toBe(0);
    expect(mailsTo(person)).toEqual([]);
    expect(await noticeOutcomes(person)).toEqual([{ kind: 'needs_reconnect', outcome: 'mail_off' }]);
  });

  it('none for an incident over before its mail went (the person reconnected)', async () => {
    const person = await connectedPerson();
    await revokeAndSync(person);
    expect((await connect(person.client)).status).toBe(303);
    expect(await sendNotices()).toBe(0);
    expect(await noticeOutcomes(person)).toEqual([{ kind: 'needs_reconnect', outcome: 'resolved' }]);
  });
});

describe('one-click unsubscribe (RFC 8058)', () => {
  /** A person whose connection needs them, and the link of the mail they got about it. */
  async function mailedPerson(): Promise<Person & { link: string }> {
    const person = await connectedPerson();
    await revokeAndSync(person);
    expect(await sendNotices()).toBe(1);
    const [mail] = mailsTo(person);
    expect(mail!.headerLines.find((header) => header.key === 'list-unsubscribe-post')?.line).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    return { ...person, link: unsubscribeLinkOf(mail!) };
  }

  const connectionMail = async (person: Person) =>
    (await bodyOf<{ connectionMail: boolean }>(await person.client.get('/api/me'))).connectionMail;

  /** The POST a mail client sends for List-Unsubscribe-Post: no cookie, no form token, no Origin. */
  const oneClick = (link: string) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      redirect: 'manual',
    });

  it("the mail's List-Unsubscribe link, posted to as a mail client does, turns the mails off: 200, with no sign-in", async () => {
    const person = await mailedPerson();

    const unsubscribed = await oneClick(person.link);

    expect(unsubscribed.status).toBe(200);
    expect(await unsubscribed.text()).toContain('You will get no more mails about your connection.');
    expect(await connectionMail(person)).toBe(false);
    expect((await oneClick(person.link)).status).toBe(200);
  });

  it('a GET of the link (a person, or a scanner following links) changes nothing: its page has the button that posts', async () => {
    const person = await mailedPerson();
    const browser = stack.browser();

    const page = await browser.get(person.link);

    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Stop the mails about your connection?');
    expect(await connectionMail(person)).toBe(true);
    // The form has no action: it posts to the page's own address, the link.
    expect(html).toMatch(/<form class="actions" method="post" aria-label="Unsubscribe">/);
    const pressed = await browser.postForm(person.link, { 'List-Unsubscribe': 'One-Click' }, { origin: stack.appUrl });
    expect(pressed.status).toBe(200);
    expect(await connectionMail(person)).toBe(false);
  });

  it('a link cut short, altered or signed under another key changes nothing: 400 or 403 in plain words', async () => {
    const person = await mailedPerson();
    const other = await connectedPerson();
    const link = new URL(person.link);
    const withParam = (name: string, value: string | undefined) => {
      const changed = new URL(link);
      if (value === undefined) changed.searchParams.delete(name);
      else changed.searchParams.set(name, value);
      return changed.href;
    };
    const signature = link.searchParams.get('signature')!;
    const elsewhere = createUnsubscribeLinks({ key: randomBytes(32), previousKeys: [] }, stack.appUrl);
    const cases: Array<[string, number]> = [
      [withParam('person', String(other.id)), 403],
      [withParam('notice', String(Number(link.searchParams.get('notice')) + 1)), 403],
      [withParam('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`), 403],
      // The same 256 bits, the last character's two spare bits set otherwise.
      [withParam('signature', `${signature.slice(0, -1)}${otherSpelling(signature.at(-1)!)}`), 403],
      [elsewhere.linkFor({ id: Number(link.searchParams.get('notice')), user_id: person.id }), 403],
      [withParam('signature', undefined), 400],
      [withParam('signature', signature.slice(0, 20)), 400],
      [withParam('person', 'me'), 400],
      [`${person.link}&person=${person.id}`, 400],
      [`${stack.appUrl}/mail/unsubscribe`, 400],
    ];
    for (const [refused, status] of cases) {
      for (const response of [await oneClick(refused), await fetch(refused)]) {
        expect(response.status, refused).toBe(status);
        expect(await response.text()).toContain('This link is not valid');
      }
    }
    expect(await connectionMail(person)).toBe(true);
    expect(await connectionMail(other)).toBe(true);
  });

  it('a link signed under the token key before the last rotation (TOKEN_ENCRYPTION_PREVIOUS_KEYS) still works', async () => {
    const person = await mailedPerson();
    const notice = Number(new URL(person.link).searchParams.get('notice'));
    const beforeRotation = createUnsubscribeLinks({ key: PREVIOUS_KEY, previousKeys: [] }, stack.appUrl);

    expect((await oneClick(beforeRotation.linkFor({ id: notice, user_id: person.id }))).status).toBe(200);
    expect(await connectionMail(person)).toBe(false);
  });
});

/** A base64url character with the same top four bits as `last` and other bottom two (the 43rd character's spare bits). */
function otherSpelling(last: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return alphabet[alphabet.indexOf(last) ^ 1]!;
}

describe('never twice, never lost', () => {
  it('a sender that dies while the mail server has not taken the mail: the mail goes once its claim runs out', async () => {
    const person = await connectedPerson();
    await revokeAndSync(person);
    catcher.answer = 'stall';
    // This send hangs, as if its process had died in the middle of it; it is left behind.
    void sendNotices().catch(() => {});
    await eventually('the mail server to hold the mail', async () => (catcher.stalled > 0 ? true : undefined));
    catcher.answer = 'take';
    expect(await sendNotices()).toBe(0);
    const later = () => new Date(Date.now() + 5 * 60_000);
    expect(await sendNotices(later)).toBe(1);
    expect(await sendNotices(later)).toBe(0);
    expect(mailsTo(person)).toHaveLength(1);
  });

  it('two workers sending at once send each mail once', async () => {
    const people = [await connectedPerson(), await connectedPerson(), await connectedPerson()];
    for (const person of people) await revokeAndSync(person);
    const sent = await Promise.all([sendNotices(), sendNotices(), sendNotices()]);
    expect(sent.reduce((sum, count) => sum + count, 0)).toBe(3);
    for (const person of people) expect(mailsTo(person)).toHaveLength(1);
  });

  it('a mail server that refuses for now is tried again later; one that refuses for good settles the notice', async () => {
    const person = await connectedPerson();
    await revokeAndSync(person);
    catcher.answer = 'refuse-for-now';
    expect(await sendNotices()).toBe(0);
    catcher.answer = 'take';
    expect(await sendNotices()).toBe(0);
    expect(await sendNotices(() => new Date(Date.now() + 2 * 60_000))).toBe(1);

    const refused = await connectedPerson();
    await revokeAndSync(refused);
    catcher.answer = 'refuse-for-good';
    expect(await sendNotices()).toBe(0);
    expect(await noticeOutcomes(refused)).toEqual([{ kind: 'needs_reconnect', outcome: 'refused' }]);
  });

  it('a worker killed between deciding and sending: the next worker sends the mail, once', async () => {
    const person = await connectedPerson();
    // The first worker decides (its job records the incident) but never gets to send: its next send is far off.
    workers.push(await startWorkerProcess(stack, { SYNC_QUIET_MS: '100', MAIL_INTERVAL_MS: '600000' }));
    const stolen = (await stack.storedGrant(person.id))!.refreshToken;
    for (let i = 0; i < 2; i++) await stack.presentRefreshToken(stolen);
    await writeDay(person.client, '2026-03-13');
    await eventually('the incident to be recorded', async () => ((await noticeOutcomes(person)).length === 1 ? true : undefined));
    await workers.pop()!.stop('SIGKILL');
    expect(mailsTo(person)).toEqual([]);

    workers.push(await startWorkerProcess(stack, { MAIL_INTERVAL_MS: '100' }));
    await eventually('the mail', async () => (mailsTo(person).length > 0 ? true : undefined));
    await eventually('the notice to be settled', async () => ((await noticeOutcomes(person))[0]?.outcome === 'sent' ? true : undefined));
    expect(await sendNotices(() => new Date(Date.now() + 3_600_000))).toBe(0);
    expect(mailsTo(person)).toHaveLength(1);
  }, 60_000);
});
