import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../src/dates/date-style.js';
import { DEFAULT_LOCALE } from '../../src/dates/page-locales.js';
import type { SyncOverview } from '../../src/dashboard/sync-overview.js';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import { recordNextAttempt } from '../../src/sync/outbox.js';
import { SYNCED_KINDS, KINDS } from '../../src/kinds.js';
import { connectedUser } from '../helpers/flows.js';
import { bodyOf, hiddenField } from '../helpers/http-client.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { workload, writeDay } from '../helpers/kinds.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const ZONE = 'Asia/Kathmandu';
/** The kind the dashboard's entries are made of (test/helpers/kinds.ts), as src/kinds.ts declares it. */
const kind = SYNCED_KINDS.find((synced) => synced.name === workload.syncKind)!;
const entryOfDay = (userId: number, date: string) => ({ userId, kind: workload.syncKind, subject: date });
/** Where the overview links the kind's entry of `date`. */
const hrefOf = (date: string) => kind.sync.overview.href({ kind: workload.syncKind, subject: date, status: 'pending', changedAt: date });
const idOf = (date: string) => `${workload.syncKind}-${date}`;
const failingWith = (error: ServiceError) =>
  serviceApiWith({
    postJson: async () => {
      throw error;
    },
  });

/** The dashboard's line of one day: from its link to the end of its entry. */
function entryOf(html: string, date: string): string {
  const start = html.indexOf(`data-sync-entry="${idOf(date)}"`);
  expect(start, `an entry for ${date}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</li>', html.indexOf('</details>', start)));
}

describe('the dashboard', () => {
  it('keeps a refused time zone as typed, with the problem next to the field and a link to it at the top', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack, { timezone: ZONE });
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toMatch(/<input name="timezone" value="Asia\/Kathmandu" list="settings-zones"[^>]* id="settings-timezone"/);
    const refused = await client.postForm('/settings/timezone', { timezone: 'Kathmandoo', _csrf: hiddenField(dashboard, '_csrf') });
    expect(refused.status).toBe(303);
    const page = await (await client.get(refused.headers.get('location')!)).text();
    expect(await (await client.get('/')).text()).not.toContain('Kathmandoo');
    expect(page).toMatch(/role="alert">Your time zone was not saved: <a href="#settings-timezone">Time zone must be one from the list/);
    const field = page.slice(page.indexOf('<input name="timezone"'));
    expect(field).toMatch(
      /^<input name="timezone" value="Kathmandoo"[^>]* id="settings-timezone"[^>]*aria-invalid="true" aria-describedby="settings-timezone-problem">/,
    );
    expect(field).toMatch(
      /^[^\n]*\n\s*<span class="field-problem" id="settings-timezone-problem">Time zone must be one from the list, such as Europe\/Berlin.<\/span>/,
    );
  });

  it('says an entry made after Disconnect waits for a connection, here and on its kind’s page', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack, { timezone: ZONE });
    const disconnect = hiddenField(await (await client.get('/disconnect')).text(), '_csrf');
    expect((await client.postForm('/disconnect', { _csrf: disconnect })).status).toBe(303);
    const today = localToday(new Date(), ZONE);
    await writeDay(client, today);

    const dashboard = await (await client.get('/')).text();
    expect(entryOf(dashboard, today)).toContain('>Waiting for a connection<');
    expect(entryOf(dashboard, today)).toContain('Nothing is sent while you are not connected to the Athlete Data Service');
    expect(await (await client.get(hrefOf(today))).text()).toContain('>Waiting for a connection<');
  });

  it('shows a connection whose scope the service withdrew as needing attention, with Reconnect as the main action', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const date = localToday(new Date(), 'Europe/Berlin');
    await writeDay(client, date);
    const before = await (await client.get('/')).text();
    expect(before).toContain('data-testid="connection-status">Connected<');
    expect(before).toContain('<a class="button secondary" href="/connect">Reconnect</a>');

    await stack.changeSandbox({ withdrawnScopes: [kind.scope] });
    await sendEntry(stack.sendDependencies(), entryOfDay(userId, date));
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain(
      `<span class="status needs_attention" data-testid="connection-status">Connected, with ${kind.title} off</span>`,
    );
    expect(dashboard).toMatch(
      new RegExp(
        `role="alert" data-testid="withdrawn-permission">The Athlete Data Service withdrew this app's permission for\\s+${kind.title}:`,
      ),
    );
    expect(dashboard).toContain('<a class="button" href="/connect">Reconnect</a>');
  });

  it('includes later local days: an entry of tomorrow, sent, is in the overview, first', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    const tomorrow = addDays(today, 1);
    await writeDay(client, today);
    await writeDay(client, tomorrow);
    await sendEntry(stack.sendDependencies(), entryOfDay(userId, tomorrow));

    const dashboard = await (await client.get('/')).text();
    expect(entryOf(dashboard, tomorrow)).toContain('data-sync-state="synced">Sent just now<');
    expect(dashboard.indexOf(idOf(tomorrow))).toBeLessThan(dashboard.indexOf(idOf(today)));
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview.kinds.find((shown) => shown.kind === kind.name)?.entries.map((entry) => entry.id)).toEqual([
      idOf(tomorrow),
      idOf(today),
    ]);
  });

  it('links every capability that is on to its page', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack);
    const dashboard = await (await client.get('/')).text();
    for (const { name, page } of KINDS) {
      expect(dashboard).toMatch(new RegExp(`data-capability="${name}">\\s*<span><a href="${page.path}">[\\s\\S]*?class="on">On`));
    }
  });

  it('gives a sync overview of the last 14 days in plain words: sent, refused, waiting with the next try; a count and the last problem', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const now = new Date();
    const today = localToday(now, ZONE);
    const [sent, refused, busy, old] = [addDays(today, -2), addDays(today, -1), today, addDays(today, -20)];
    for (const date of [old, sent, refused, busy]) await writeDay(client, date);
    const sentAt = new Date(now.getTime() - 120_000);
    await sendEntry({ ...stack.sendDependencies(), clock: () => sentAt }, entryOfDay(userId, sent));
    await sendEntry(
      stack.sendDependencies(failingWith(new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many'))),
      entryOfDay(userId, refused),
    );
    const unavailable = new ServiceError('retryable', 'HTTP 503: temporarily_unavailable: injected fault: service unavailable');
    await expect(sendEntry(stack.sendDependencies(failingWith(unavailable)), entryOfDay(userId, busy))).rejects.toBe(unavailable);
    // What the worker records as BullMQ schedules the retry (worker.ts).
    await recordNextAttempt(stack.db, entryOfDay(userId, busy), new Date(Date.now() + 30_000));

    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('2 waiting to be sent, 1 refused by the service.');
    expect(dashboard).toMatch(
      new RegExp(`data-testid="sync-last-problem">${kind.title}, .*: Waiting: the service is busy, next try in about (29|30) s\\.`),
    );
    expect(entryOf(dashboard, sent)).toContain(`href="${hrefOf(sent)}">${dateStyleFor(DEFAULT_LOCALE).day(sent)}</a>`);
    expect(entryOf(dashboard, sent)).toContain('data-sync-state="synced">Sent 2 minutes ago<');
    const localTime = DateTime.fromJSDate(sentAt).setZone(ZONE).toFormat('d LLL yyyy, HH:mm:ss');
    expect(entryOf(dashboard, sent)).toMatch(new RegExp(`<li>Sent at ${localTime} \\(Asia/Kath?mandu\\) as version 1\\.</li>`));
    expect(entryOf(dashboard, refused)).toMatch(
      /data-sync-state="failed">Refused by the service<[\s\S]*<summary>Details<\/summary>[\s\S]*Reason recorded: HTTP 400: invalid_request: items.0.carbs: too many</,
    );
    const waiting = entryOf(dashboard, busy);
    expect(waiting).toMatch(/data-sync-state="pending">Waiting: the service is busy, next try in about (29|30) s</);
    expect(waiting).toMatch(
      /<details class="sync-details"><summary>Details<\/summary>\s*<ul><li>Reason recorded: HTTP 503: temporarily_unavailable/,
    );
    expect(dashboard).not.toContain(idOf(old));
    expect(dashboard).toContain('<script src="/assets/sync-overview.js" defer></script>');
  });

  it('gives the reason of an entry waiting from before the days shown beside its count, in the page and its JSON', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const old = addDays(localToday(new Date(), ZONE), -20);
    await writeDay(client, old);
    const unavailable = new ServiceError('retryable', 'HTTP 503: temporarily_unavailable: injected fault: service unavailable');
    await expect(sendEntry(stack.sendDependencies(failingWith(unavailable)), entryOfDay(userId, old))).rejects.toBe(unavailable);
    await recordNextAttempt(stack.db, entryOfDay(userId, old), new Date(Date.now() + 30_000));

    const reason = `${kind.title}, ${dateStyleFor(DEFAULT_LOCALE).day(old)}: Waiting: the service is busy, next try in about (29|30) s.`;
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('1 waiting to be sent.');
    expect(dashboard).toMatch(new RegExp(`data-testid="sync-last-problem">${reason}</p>`));
    expect(dashboard).not.toContain(idOf(old));
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview).toMatchObject({
      pending: true,
      counts: '1 waiting to be sent.',
      lastProblem: expect.stringMatching(new RegExp(`^${reason}$`)),
    });

    await sendEntry(
      stack.sendDependencies(failingWith(new ServiceError('permanent', 'HTTP 400: invalid_request'))),
      entryOfDay(userId, old),
    );
    expect(await bodyOf<SyncOverview>(await client.get('/api/sync/overview'))).toMatchObject({
      pending: false,
      counts: 'Nothing waits to be sent, 1 refused by the service.',
      lastProblem: `${kind.title}, ${dateStyleFor(DEFAULT_LOCALE).day(old)}: Refused by the service.`,
    });
  });

  it('writes no stray word into the page while nothing went wrong: the last problem’s line is empty and hidden', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack, { timezone: ZONE });
    await writeDay(client, localToday(new Date(), ZONE));
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('<p class="notice warning" data-testid="sync-last-problem" hidden></p>');
    expect(dashboard).not.toContain('undefined');
  });

  it('answers the same overview as JSON for the page’s script, saying whether anything still waits; each entry links to its day', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    const label = dateStyleFor(DEFAULT_LOCALE).day(today);
    await writeDay(client, today);
    const waiting = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(waiting).toMatchObject({ pending: true, counts: '1 waiting to be sent.' });
    const entriesOf = (overview: SyncOverview) => overview.kinds.find((shown) => shown.kind === kind.name)?.entries;
    expect(entriesOf(waiting)).toEqual([
      { id: idOf(today), label, href: hrefOf(today), state: 'pending', headline: 'Waiting to be sent', details: [] },
    ]);
    const [page, anchor] = hrefOf(today).split('#');
    const linked = await client.get(page!);
    expect(linked.status).toBe(200);
    if (anchor !== undefined) expect(await linked.text()).toContain(`id="${anchor}"`);

    await sendEntry(stack.sendDependencies(), entryOfDay(userId, today));
    const sent = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(sent).toMatchObject({ pending: false, counts: 'Nothing waits to be sent.' });
    expect(sent.lastProblem).toBeUndefined();
    expect(entriesOf(sent)?.[0]).toMatchObject({ state: 'synced', headline: 'Sent just now' });
    expect((await fetch(`${stack.appUrl}/api/sync/overview`)).status).toBe(401);
  });

  it('words an entry recorded by a newer version (an unknown kind of failure, a retry time it cannot read) as a failed try', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    await writeDay(client, today);
    await stack.db
      .updateTable('outbox')
      .set({ last_error: 'HTTP 429', problem: 'throttled' as never, next_attempt_at: 'tomorrow-ish' })
      .where('user_id', '=', userId)
      .execute();
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview.kinds.find((shown) => shown.kind === kind.name)?.entries[0]).toMatchObject({
      state: 'pending',
      headline: 'Waiting: the last try failed, next try soon',
    });
    expect(overview.lastProblem).toMatch(/: Waiting: the last try failed, next try soon\.$/);
  });

  it('counts only the kinds this version sends: an entry of a newer version’s kind does not keep the page refreshing', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    await stack.db
      .insertInto('outbox')
      .values({
        user_id: userId,
        kind: 'sleep' as never,
        subject: '2026-11-20',
        version: 1,
        synced_version: null,
        synced_at: null,
        failed_version: null,
        last_error: null,
        problem: null,
        next_attempt_at: null,
        updated_at: new Date().toISOString(),
      })
      .execute();
    expect(await bodyOf<SyncOverview>(await client.get('/api/sync/overview'))).toMatchObject({
      pending: false,
      counts: 'Nothing waits to be sent.',
    });
  });
});

describe('the dashboard at a glance', () => {
  it('draws how many entries the service received on each of the last 14 days, an entry sent again once, with the numbers as text', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    // Today's day is changed and sent again: it counts once, on the day of its latest send.
    const writes: Array<[string, number]> = [
      [today, 0],
      [addDays(today, -1), 0],
      [today, 1],
    ];
    for (const [date, n] of writes) {
      await writeDay(client, date, n);
      await sendEntry(stack.sendDependencies(), entryOfDay(userId, date));
    }
    const { version, synced_version: synced } = await stack.db
      .selectFrom('outbox')
      .select(['version', 'synced_version'])
      .where('user_id', '=', userId)
      .where('subject', '=', today)
      .executeTakeFirstOrThrow();
    expect([version, synced]).toEqual([2, 2]);
    const html = await (await client.get('/')).text();
    const chart = html.slice(
      html.indexOf('data-chart="chart-received"'),
      html.indexOf('</figure>', html.indexOf('data-chart="chart-received"')),
    );
    const written = dateStyleFor(DEFAULT_LOCALE).day(today);
    expect(chart).toContain('<svg viewBox=');
    expect(chart).toContain(`: on 1 day, 2 entries in all; latest 2 entries on ${written}.</title>`);
    expect(chart).toContain(`<tr><th scope="row">${written}</th><td>2 entries</td></tr>`);
    expect(chart).toContain(`<td>0 entries</td>`);
  });

  it('shows the summary of every registered kind that has one', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack, { timezone: ZONE });
    const html = await (await client.get('/')).text();
    for (const { name, dashboard } of KINDS) {
      expect(html.includes(`data-kind-summary="${name}"`), name).toBe(dashboard !== undefined);
    }
  });
});
