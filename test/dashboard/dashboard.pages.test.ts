import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../src/dates/date-style.js';
import { DEFAULT_LOCALE } from '../../src/dates/page-locales.js';
import type { SyncOverview } from '../../src/dashboard/sync-overview.js';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { syncEntry } from '../../src/sync/jobs.js';
import { markDirty, recordNextAttempt } from '../../src/sync/outbox.js';
import { connectedUser } from '../helpers/flows.js';
import { bodyOf, hiddenField } from '../helpers/http-client.js';
import { addMeal } from '../helpers/meals.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { putWellness } from '../helpers/wellness.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const ZONE = 'Asia/Kathmandu';
const nutritionDay = (userId: number, date: string) => ({ userId, kind: 'nutrition' as const, subject: date });
const failingWith = (error: ServiceError) =>
  serviceApiWith({
    upsertNutrition: async () => {
      throw error;
    },
  });

/** The dashboard's line of one day: from its link to the end of its entry. */
function entryOf(html: string, date: string): string {
  const start = html.indexOf(`data-sync-entry="nutrition-${date}"`);
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
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toMatch(/role="alert">Your time zone was not saved: <a href="#settings-timezone">Time zone must be one from the list/);
    const field = page.slice(page.indexOf('<input name="timezone"'));
    expect(field).toMatch(
      /^<input name="timezone" value="Kathmandoo"[^>]* id="settings-timezone"[^>]*aria-invalid="true" aria-describedby="settings-timezone-problem">/,
    );
    expect(field).toMatch(
      /^[^\n]*\n\s*<span class="field-problem" id="settings-timezone-problem">Time zone must be one from the list, such as Europe\/Berlin.<\/span>/,
    );
  });

  it('shows a connection whose scope the service withdrew as needing attention, with Reconnect as the main action', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const date = localToday(new Date(), 'Europe/Berlin');
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${date}T08:00:00+01:00` });
    const before = await (await client.get('/')).text();
    expect(before).toContain('data-testid="connection-status">Connected<');
    expect(before).toContain('<a class="button secondary" href="/connect">Reconnect</a>');

    await stack.changeSandbox({ withdrawnScopes: ['nutrition:write'] });
    await syncEntry(stack.sendDependencies(), nutritionDay(userId, date));
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain(
      '<span class="status needs_attention" data-testid="connection-status">Connected, with Nutrition off</span>',
    );
    expect(dashboard).toMatch(
      /role="alert" data-testid="withdrawn-permission">The Athlete Data Service withdrew this app's permission for\s+Nutrition:/,
    );
    expect(dashboard).toContain('<a class="button" href="/connect">Reconnect</a>');
  });

  it('includes later local days: a meal at 00:15 tomorrow, sent, is in the overview, first', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    const tomorrow = addDays(today, 1);
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${today}T08:00:00+05:45` });
    await addMeal(client, { name: 'Midnight snack', carbs: 20, logged_at: `${tomorrow}T00:15:00+05:45` });
    await syncEntry(stack.sendDependencies(), nutritionDay(userId, tomorrow));

    const dashboard = await (await client.get('/')).text();
    expect(entryOf(dashboard, tomorrow)).toContain('data-sync-state="synced">Sent just now<');
    expect(dashboard.indexOf(`nutrition-${tomorrow}`)).toBeLessThan(dashboard.indexOf(`nutrition-${today}`));
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview.kinds.find((kind) => kind.kind === 'nutrition')?.entries.map((entry) => entry.id)).toEqual([
      `nutrition-${tomorrow}`,
      `nutrition-${today}`,
    ]);
  });

  it('links every capability that is on to its page', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack);
    const dashboard = await (await client.get('/')).text();
    for (const [id, page] of [
      ['nutrition', '/meals'],
      ['wellness', '/wellness'],
      ['activities', '/activities'],
      ['workouts', '/workouts'],
    ]) {
      expect(dashboard).toMatch(new RegExp(`data-capability="${id}">\\s*<span><a href="${page}">[\\s\\S]*?class="on">On`));
    }
  });

  it('gives a sync overview of the last 14 days in plain words: sent, refused, waiting with the next try; a count and the last problem', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const now = new Date();
    const today = localToday(now, ZONE);
    const [sent, refused, busy, old] = [addDays(today, -2), addDays(today, -1), today, addDays(today, -20)];
    for (const date of [old, sent, refused, busy]) await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${date}T08:00:00+05:45` });
    const sentAt = new Date(now.getTime() - 120_000);
    await syncEntry({ ...stack.sendDependencies(), clock: () => sentAt }, nutritionDay(userId, sent));
    await syncEntry(
      stack.sendDependencies(failingWith(new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many'))),
      nutritionDay(userId, refused),
    );
    const unavailable = new ServiceError('retryable', 'HTTP 503: temporarily_unavailable: injected fault: service unavailable');
    await expect(syncEntry(stack.sendDependencies(failingWith(unavailable)), nutritionDay(userId, busy))).rejects.toBe(unavailable);
    // What the worker records as BullMQ schedules the retry (worker.ts).
    await recordNextAttempt(stack.db, nutritionDay(userId, busy), new Date(Date.now() + 30_000));

    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('2 waiting to be sent, 1 refused by the service.');
    expect(dashboard).toMatch(/data-testid="sync-last-problem">Nutrition, .*: Waiting: the service is busy, next try in about (29|30) s\./);
    expect(entryOf(dashboard, sent)).toContain(`href="/meals?date=${sent}">${dateStyleFor(DEFAULT_LOCALE).day(sent)}</a>`);
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
    expect(dashboard).not.toContain(`nutrition-${old}`);
    expect(dashboard).toContain('<script src="/assets/sync-overview.js" defer></script>');
  });

  it('gives the reason of an entry waiting from before the days shown beside its count, in the page and its JSON', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const old = addDays(localToday(new Date(), ZONE), -20);
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${old}T08:00:00+05:45` });
    const unavailable = new ServiceError('retryable', 'HTTP 503: temporarily_unavailable: injected fault: service unavailable');
    await expect(syncEntry(stack.sendDependencies(failingWith(unavailable)), nutritionDay(userId, old))).rejects.toBe(unavailable);
    await recordNextAttempt(stack.db, nutritionDay(userId, old), new Date(Date.now() + 30_000));

    const reason = `Nutrition, ${dateStyleFor(DEFAULT_LOCALE).day(old)}: Waiting: the service is busy, next try in about (29|30) s.`;
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('1 waiting to be sent.');
    expect(dashboard).toMatch(new RegExp(`data-testid="sync-last-problem">${reason}</p>`));
    expect(dashboard).not.toContain(`nutrition-${old}`);
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview).toMatchObject({
      pending: true,
      counts: '1 waiting to be sent.',
      lastProblem: expect.stringMatching(new RegExp(`^${reason}$`)),
    });

    await syncEntry(
      stack.sendDependencies(failingWith(new ServiceError('permanent', 'HTTP 400: invalid_request'))),
      nutritionDay(userId, old),
    );
    expect(await bodyOf<SyncOverview>(await client.get('/api/sync/overview'))).toMatchObject({
      pending: false,
      counts: 'Nothing waits to be sent, 1 refused by the service.',
      lastProblem: `Nutrition, ${dateStyleFor(DEFAULT_LOCALE).day(old)}: Refused by the service.`,
    });
  });

  it('writes no stray word into the page while nothing went wrong: the last problem’s line is empty and hidden', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack, { timezone: ZONE });
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${localToday(new Date(), ZONE)}T08:00:00+05:45` });
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('<p class="notice warning" data-testid="sync-last-problem" hidden></p>');
    expect(dashboard).not.toContain('undefined');
  });

  it('answers the same overview as JSON for the page’s script, saying whether anything still waits; each entry links to its day', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    const label = dateStyleFor(DEFAULT_LOCALE).day(today);
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${today}T08:00:00+05:45` });
    await putWellness(client, today, { hrv: 50 });
    const waiting = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(waiting).toMatchObject({ pending: true, counts: '2 waiting to be sent.' });
    const entriesOf = (overview: SyncOverview, kind: string) => overview.kinds.find((shown) => shown.kind === kind)?.entries;
    expect(entriesOf(waiting, 'nutrition')).toEqual([
      { id: `nutrition-${today}`, label, href: `/meals?date=${today}`, state: 'pending', headline: 'Waiting to be sent', details: [] },
    ]);
    expect(entriesOf(waiting, 'wellness')).toMatchObject([{ id: `wellness-${today}`, label, href: `/wellness#wellness-${today}` }]);
    expect(await (await client.get('/wellness')).text()).toContain(`id="wellness-${today}"`);

    await syncEntry(stack.sendDependencies(), nutritionDay(userId, today));
    await syncEntry(stack.sendDependencies(), { userId, kind: 'wellness', subject: today });
    const sent = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(sent).toMatchObject({ pending: false, counts: 'Nothing waits to be sent.' });
    expect(sent.lastProblem).toBeUndefined();
    expect(entriesOf(sent, 'nutrition')?.[0]).toMatchObject({ state: 'synced', headline: 'Sent just now' });
    expect((await fetch(`${stack.appUrl}/api/sync/overview`)).status).toBe(401);
  });

  it('words an entry recorded by a newer version (an unknown kind of failure, a retry time it cannot read) as a failed try', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${today}T08:00:00+05:45` });
    await stack.db
      .updateTable('outbox')
      .set({ last_error: 'HTTP 429', problem: 'throttled' as never, next_attempt_at: 'tomorrow-ish' })
      .where('user_id', '=', userId)
      .execute();
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    expect(overview.kinds[0]?.entries[0]).toMatchObject({ state: 'pending', headline: 'Waiting: the last try failed, next try soon' });
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

  it('shows an activity entry whose subject names no row there can be (a hand edit) by its subject, on every database', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: ZONE });
    for (const subject of ['abc', String(2 ** 31)]) await markDirty(stack.db, { userId, kind: 'activities', subject }, new Date());
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    const labels = overview.kinds.find((kind) => kind.kind === 'activities')?.entries.map((entry) => entry.label);
    expect(labels?.sort()).toEqual([`Activity ${2 ** 31}`, 'Activity abc']);
    expect((await client.get('/')).status).toBe(200);
  });
});
