import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates/local-today.js';
import { WAITING_FOR_CONNECTION } from '../../src/sync/send-entry.js';
import { markFailed, markSynced, recordPendingReason } from '../../src/sync/outbox.js';
import { signUpNewUser } from '../helpers/flows.js';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { BLANK_WELLNESS_FORM, MEASUREMENT_NAMES, NOW, putWellness, wellnessDays } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ clock: () => NOW });
});
afterAll(async () => {
  await stack.close();
});

const TODAY = '2026-11-23'; // in Pacific/Pago_Pago
/** TODAY as the pages write it (en-GB, when the browser names no language). */
const TODAY_WRITTEN = 'Mon, 23 Nov 2026';
const blank = BLANK_WELLNESS_FORM;

async function newUser(timezone = 'Pacific/Pago_Pago'): Promise<{ client: CookieClient; userId: number }> {
  const client = stack.browser();
  const email = await signUpNewUser(client, timezone);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { client, userId: id };
}

async function page(client: CookieClient, path = '/wellness'): Promise<string> {
  const response = await client.get(path);
  expect(response.status).toBe(200);
  return response.text();
}

/** Posts a row's form as the browser would, with the page's form token. */
async function postRow(client: CookieClient, path: string, fields: Record<string, string> = {}): Promise<Response> {
  return client.postForm(path, { _csrf: hiddenField(await page(client), '_csrf'), ...fields });
}

/** Posts a row the app refuses: it redirects to the row's page (Back does not send it again), which says why once. */
async function refusedRow(client: CookieClient, path: string, fields: Record<string, string>): Promise<string> {
  const refused = await postRow(client, path, fields);
  expect(refused.status).toBe(303);
  const html = await page(client, refused.headers.get('location')!);
  expect(await page(client, refused.headers.get('location')!)).not.toContain('was not saved');
  return html;
}

function rowOf(html: string, date: string): string {
  const row = html.match(new RegExp(`<tr data-date="${date}">[\\s\\S]*?</tr>`))?.[0];
  if (!row) throw new Error(`no row for ${date}`);
  return row;
}

function datesOf(html: string): string[] {
  return [...html.matchAll(/<tr data-date="([^"]+)">/g)].map((match) => match[1]!);
}

function linkOf(html: string, text: string): string {
  const href = html.match(new RegExp(`<a [^>]*href="([^"]+)"[^>]*>[^<]*${text}`))?.[1];
  if (!href) throw new Error(`no link “${text}”`);
  return href.replaceAll('&amp;', '&');
}

function inputOf(row: string, name: string): string {
  return row.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`))![0];
}

describe('the wellness page', () => {
  it.each([
    ['Pacific/Pago_Pago', '2026-11-24', '2026-11-10'],
    ['Pacific/Kiritimati', '2026-11-25', '2026-11-11'],
  ])('shows tomorrow and the last 14 local days of a user in %s, tomorrow (%s) first', async (zone, tomorrow, first) => {
    const { client } = await newUser(zone);
    const dates = datesOf(await page(client));
    expect(dates).toHaveLength(15);
    expect(dates[0]).toBe(tomorrow);
    expect(dates.at(-1)).toBe(first);
  });

  it('goes to earlier days page by page and back to the latest, with no later page after it', async () => {
    const { client } = await newUser();
    const latest = await page(client);
    expect(latest).not.toContain('Later days');
    const earlier = await page(client, linkOf(latest, 'Earlier days'));
    expect(datesOf(earlier)).toEqual(datesOf(latest).map((date) => addDays(date, -15)));
    const twoBack = await page(client, linkOf(earlier, 'Earlier days'));
    expect(datesOf(twoBack)[0]).toBe('2026-10-25');
    expect(linkOf(twoBack, 'Later days')).toBe('/wellness?date=2026-11-09');
    expect(linkOf(earlier, 'Later days')).toBe('/wellness');
  });

  it('saves a day of an earlier page and comes back to that page', async () => {
    const { client } = await newUser();
    const saved = await postRow(client, '/wellness/2026-11-01', { ...blank, hrv: '50' });
    expect(saved.headers.get('location')).toBe('/wellness?date=2026-11-09');
    expect(inputOf(rowOf(await page(client, saved.headers.get('location')!), '2026-11-01'), 'hrv')).toContain('value="50"');
  });

  it.each([
    ['abc', 'The address asks for the date “abc”, which is not a date.'],
    ['2026-02-30', 'The address asks for 2026-02-30, a day the calendar does not have.'],
    ['2026-11-25', 'The address asks for 2026-11-25; the latest day with wellness is tomorrow, 2026-11-24.'],
  ])('answers ?date=%s with a 400 page that says why in plain words and links to the latest days', async (date, problem) => {
    const { client } = await newUser();
    const response = await client.get(`/wellness?date=${date}`);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain(problem);
    expect(html).toContain('<a class="button" href="/wellness">Show the latest days</a>');
    expect(html).not.toContain('<tr data-date=');
  });

  it('saves a row with only the measurements typed, then shows them (post/redirect/get)', async () => {
    const { client } = await newUser();
    const saved = await postRow(client, `/wellness/${TODAY}`, { ...blank, hrv: ' 48.5 ', restingHr: '52' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/wellness');
    expect(await wellnessDays(client, TODAY)).toEqual([{ date: TODAY, hrv: 48.5, restingHr: 52, sync: { status: 'pending' } }]);
    const row = rowOf(await page(client), TODAY);
    expect(inputOf(row, 'hrv')).toContain('value="48.5"');
    expect(inputOf(row, 'weight')).toContain('value=""');
    expect(row).toContain('pending');
    expect(row).toContain('Delete');
  });

  it.each([
    [{ restingHr: '52.5', hrv: '48' }, 'restingHr', 'Resting HR (bpm) must be a whole number of beats per minute from 20 to 250.'],
    [{ weight: '0x10' }, 'weight', 'Weight (kg) must be a number of kilograms from 20 to 400.'],
    [{ sleepHours: '8h' }, 'sleepHours', 'Sleep hours must be a whole number of hours from 0 to 24.'],
    [{ sleepHours: '7', sleepMinutes: '7.5' }, 'sleepMinutes', 'Sleep minutes must be a whole number of minutes from 0 to 59.'],
    [{ sleepHours: '8', sleepMinutes: '60' }, 'sleepMinutes', 'Sleep minutes must be a whole number of minutes from 0 to 59.'],
    [{ sleepHours: '24', sleepMinutes: '30' }, 'sleepHours', 'Sleep can be 24 hours at most.'],
    [{ weight: '70,500' }, 'weight', 'Weight (kg): use a dot for decimals: 12.5'],
  ])('refuses %j: the row comes back as typed, the field marked, and nothing is stored', async (fields, field, message) => {
    const { client } = await newUser();
    const html = await refusedRow(client, `/wellness/${TODAY}`, { ...blank, ...fields });
    expect(html).toContain(message);
    const row = rowOf(html, TODAY);
    for (const [name, value] of Object.entries(fields)) expect(inputOf(row, name)).toContain(`value="${value}"`);
    expect(inputOf(row, field)).toContain('aria-invalid="true"');
    expect(inputOf(row, 'vo2max')).not.toContain('aria-invalid');
    expect(await wellnessDays(client, TODAY)).toEqual([]);
  });

  it('tells every problem of a row at once, in plain words, each field marked', async () => {
    const { client } = await newUser();
    const typed = { hrv: '-3', restingHr: '48.5', weight: '900', sleepHours: '75' };
    const html = await refusedRow(client, `/wellness/${TODAY}`, { ...blank, ...typed });
    expect(html).toContain(
      `${TODAY_WRITTEN} was not saved: HRV (ms) must be a number of milliseconds from 1 to 500. ` +
        'Resting HR (bpm) must be a whole number of beats per minute from 20 to 250. ' +
        'Sleep hours must be a whole number of hours from 0 to 24. Weight (kg) must be a number of kilograms from 20 to 400.',
    );
    const row = rowOf(html, TODAY);
    for (const [name, value] of Object.entries(typed)) {
      expect(inputOf(row, name)).toContain(`value="${value}"`);
      expect(inputOf(row, name)).toContain('aria-invalid="true"');
    }
    expect(await wellnessDays(client, TODAY)).toEqual([]);
  });

  it('takes sleep as hours and minutes, sends it in seconds, and shows it as hours and minutes again', async () => {
    const { client } = await newUser();
    expect((await postRow(client, `/wellness/${TODAY}`, { ...blank, sleepHours: '7', sleepMinutes: '45' })).status).toBe(303);
    expect((await postRow(client, '/wellness/2026-11-22', { ...blank, sleepHours: '8' })).status).toBe(303);
    expect((await postRow(client, '/wellness/2026-11-21', { ...blank, sleepMinutes: '50' })).status).toBe(303);
    expect(await wellnessDays(client, '2026-11-21', TODAY)).toMatchObject([
      { date: '2026-11-21', sleepSecs: 3000 },
      { date: '2026-11-22', sleepSecs: 28_800 },
      { date: TODAY, sleepSecs: 27_900 },
    ]);
    const row = rowOf(await page(client), TODAY);
    expect(inputOf(row, 'sleepHours')).toContain('value="7"');
    expect(inputOf(row, 'sleepMinutes')).toContain('value="45"');
    expect(inputOf(row, 'sleepHours')).toContain('aria-label="Sleep hours on Mon, 23 Nov 2026"');
  });

  it('takes a decimal comma where it cannot group thousands: 48,5', async () => {
    const { client } = await newUser();
    expect((await postRow(client, `/wellness/${TODAY}`, { ...blank, hrv: '48,5' })).status).toBe(303);
    expect(await wellnessDays(client, TODAY)).toMatchObject([{ hrv: 48.5 }]);
  });

  it('refuses an empty row and a day after tomorrow, storing nothing', async () => {
    const { client } = await newUser();
    expect(await refusedRow(client, `/wellness/${TODAY}`, blank)).toContain(
      'Mon, 23 Nov 2026 was not saved: Enter at least one measurement.',
    );
    expect(await refusedRow(client, '/wellness/2026-11-25', { ...blank, hrv: '50' })).toContain(
      'Wed, 25 Nov 2026 was not saved: The date must not be after 2026-11-24, tomorrow in Pacific/Pago_Pago: a measurement cannot be of a later day.',
    );
    expect(await wellnessDays(client, TODAY, '2026-11-25')).toEqual([]);
  });

  it('shows each day’s sync status: synced, failed with the service’s message, pending with its reason', async () => {
    const { client, userId } = await newUser();
    const day = (date: string) => ({ userId, kind: 'wellness' as const, subject: date });
    for (const date of ['2026-11-21', '2026-11-22', TODAY]) await putWellness(client, date, { hrv: 50 });
    await markSynced(stack.db, day('2026-11-21'), 1, NOW);
    await markFailed(stack.db, day('2026-11-22'), 1, { problem: 'refused', text: 'HTTP 400: hrv: expected a number' }, NOW);
    await recordPendingReason(stack.db, day(TODAY), { problem: 'needs-connection', text: WAITING_FOR_CONNECTION }, NOW);
    const html = await page(client);
    expect(rowOf(html, '2026-11-21')).toContain('Sent just now');
    expect(rowOf(html, '2026-11-22')).toMatch(
      />Refused by the service<[\s\S]*<summary>Details<\/summary>[\s\S]*Reason recorded: HTTP 400: hrv: expected a number/,
    );
    // Never connected: what waits, waits for a connection, whatever its last try said.
    expect(rowOf(html, TODAY)).toContain('Waiting for a connection');
    expect(rowOf(html, TODAY)).toMatch(
      /<details[^>]*><summary>Details<\/summary>[\s\S]*Waiting for the connection to the Athlete Data Service/,
    );
    expect(rowOf(html, '2026-11-20')).toContain('nothing recorded');
    expect(rowOf(html, '2026-11-20')).not.toContain('Delete');
    expect(html.match(/offers no way to delete/g)).toHaveLength(1);
  });

  it('deletes a day and says the service keeps what it was last sent; a day with no record is 404', async () => {
    const { client, userId } = await newUser();
    await putWellness(client, TODAY, { weight: 70 });
    await markSynced(stack.db, { userId, kind: 'wellness', subject: TODAY }, 1, NOW);
    const deleted = await postRow(client, `/wellness/${TODAY}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/wellness');
    expect(await wellnessDays(client, TODAY)).toEqual([]);
    const html = await page(client, deleted.headers.get('location')!);
    expect(html).toContain(`Deleted ${TODAY_WRITTEN} here. The service keeps what it was last sent for that day.`);
    expect(rowOf(html, TODAY)).toContain('nothing recorded');
    expect(await page(client)).not.toContain(`Deleted ${TODAY_WRITTEN} here.`);

    expect((await postRow(client, `/wellness/${TODAY}/delete`)).status).toBe(404);
    const back = await client.get(`/wellness/${TODAY}/delete`);
    expect(back.status).toBe(303);
    expect(await page(client, back.headers.get('location')!)).toContain(
      `Nothing is recorded for ${TODAY_WRITTEN}, so there is nothing to delete.`,
    );
  });

  it('deletes a day the service never received without saying it keeps anything', async () => {
    const { client } = await newUser();
    await putWellness(client, TODAY, { weight: 70 });
    const deleted = await postRow(client, `/wellness/${TODAY}/delete`);
    const html = await page(client, deleted.headers.get('location')!);
    expect(html).toContain(`Deleted ${TODAY_WRITTEN} here. It had not been sent to the service.`);
    expect(html).not.toContain('The service keeps what it was last sent for that day.');
  });

  it('confirms a save once, and asks before a delete on a page of its own', async () => {
    const { client } = await newUser();
    expect((await postRow(client, `/wellness/${TODAY}`, { ...blank, hrv: '50' })).status).toBe(303);
    expect(await page(client)).toContain(
      `<p class="notice success" role="status" data-testid="flash">Saved wellness for ${TODAY_WRITTEN}.</p>`,
    );
    expect(await page(client)).not.toContain('data-testid="flash"');

    expect(rowOf(await page(client), TODAY)).toContain(`<a class="button danger" href="/wellness/${TODAY}/delete">Delete</a>`);
    const confirm = await page(client, `/wellness/${TODAY}/delete`);
    expect(confirm).toContain(`<h1>Delete your wellness of ${TODAY_WRITTEN}?</h1>`);
    expect(confirm).toMatch(new RegExp(`<form class="actions" method="post" action="/wellness/${TODAY}/delete"`));
    expect(await wellnessDays(client, TODAY)).toMatchObject([{ hrv: 50 }]);
    expect((await client.get('/wellness/2026-01-01/delete')).status).toBe(303);
    expect((await client.get('/wellness/not-a-date/delete')).status).toBe(404);
  });

  it('does not let one user delete another’s day', async () => {
    const owner = await newUser();
    const other = await newUser();
    await putWellness(owner.client, TODAY, { weight: 70 });
    expect((await postRow(other.client, `/wellness/${TODAY}/delete`)).status).toBe(404);
    expect(await wellnessDays(owner.client, TODAY)).toMatchObject([{ weight: 70 }]);
  });
});

describe('the wellness page’s charts', () => {
  function chartOf(html: string, name: string): string {
    const chart = html.match(new RegExp(`<figure class="day-chart" data-chart="chart-${name}">[\\s\\S]*?</figure>`))?.[0];
    if (!chart) throw new Error(`no chart of ${name}`);
    return chart;
  }

  it('draws each declared measurement’s last 30 days as SVG, its numbers as text, and no day before them', async () => {
    const { client } = await newUser();
    await putWellness(client, addDays(TODAY, -30), { hrv: 90, sleepSecs: 3600 });
    await putWellness(client, addDays(TODAY, -29), { hrv: 40, sleepSecs: 27_000 });
    await putWellness(client, TODAY, { hrv: 61.5 });
    const html = await page(client);
    for (const name of MEASUREMENT_NAMES) expect(chartOf(html, name)).toContain('<svg viewBox=');
    const hrv = chartOf(html, 'hrv');
    expect(hrv).toContain(
      `<title id="chart-hrv-summary">HRV (ms), Sun, 25 Oct 2026 to ${TODAY_WRITTEN}: on 2 days, from 40 to 61.5; latest 61.5 on ${TODAY_WRITTEN}.</title>`,
    );
    expect(hrv).toContain('<tr><th scope="row">Sun, 25 Oct 2026</th><td>40</td></tr>');
    expect(hrv).not.toContain('Sat, 24 Oct 2026');
    expect(chartOf(html, 'sleepSecs')).toContain('<td>7 h 30 min</td>');
  });
});
