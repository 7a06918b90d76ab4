import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MealView } from '../../src/nutrition/meals.js';
import { signUpNewUser } from '../helpers/flows.js';
import { AMOUNT_NAMES, addMeal, storedMealIds } from './helpers.js';
import { bodyOf, hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const DATE = '2026-03-10';

async function newUser(timezone = 'Europe/Berlin'): Promise<CookieClient> {
  const client = stack.browser();
  await signUpNewUser(client, timezone);
  return client;
}

/** Posts the meals page's form as the browser would, with the page's form token. */
async function postForm(client: CookieClient, path: string, fields: Record<string, string>): Promise<Response> {
  const page = await (await client.get(`/meals?date=${DATE}`)).text();
  return client.postForm(path, { _csrf: hiddenField(page, '_csrf'), ...fields });
}

/** The page a refused form leads to (post/redirect/get): its day, with the form as typed and what is wrong, said once. */
async function pageAfter(client: CookieClient, refused: Response): Promise<string> {
  expect(refused.status).toBe(303);
  const html = await (await client.get(refused.headers.get('location')!)).text();
  expect(await (await client.get(refused.headers.get('location')!)).text()).not.toContain('role="alert"');
  return html;
}

async function dayOf(client: CookieClient, date: string): Promise<MealView[]> {
  return (await bodyOf<{ meals: MealView[] }>(await client.get(`/api/meals?date=${date}`))).meals;
}

const item = { date: DATE, time: '08:15', name: 'Oats' };

/** An input of a form in the page, by the form's action and the input's name. */
function inputOf(html: string, action: string, name: string): string {
  const form = html.match(new RegExp(`<form[^>]*action="${action}"[\\s\\S]*?</form>`))?.[0];
  if (!form) throw new Error(`no form posting to ${action}`);
  return form.match(new RegExp(`<input name="${name}"[^>]*>`))![0];
}

/** The page's text as a person reads it: HTML's escapes undone. */
const unescaped = (html: string) => html.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');

describe('the meals page’s form', () => {
  it.each(['0x10', '0b101', '1e3', 'Infinity'])('refuses carbs written %s, takes 12.5: decimal numbers only', async (carbs) => {
    const client = await newUser();
    const refused = await postForm(client, '/meals', { ...item, carbs });
    expect(await pageAfter(client, refused)).toContain('Carbs must be a decimal number of grams, such as 12.5.');
    expect(await dayOf(client, DATE)).toEqual([]);

    expect((await postForm(client, '/meals', { ...item, carbs: ' 12.5 ' })).status).toBe(303);
    expect((await dayOf(client, DATE)).map((meal) => meal.carbs)).toEqual([12.5]);
  });

  it.each([
    ['Europe/Berlin', '2101-01-01', 'Time must fall between 1900-01-01 and 2100-12-31, both in UTC and in its local time.'],
    [
      'Africa/Monrovia',
      '1970-06-01',
      'Time is at a time when Africa/Monrovia was at -00:44:30, which cannot be sent as ±hh:mm; give the time with an explicit offset.',
    ],
  ])('refuses a time that cannot be placed (%s, %s) with a message, and stores nothing', async (zone, date, message) => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    const response = await postForm(client, '/meals', { ...item, date, carbs: '60' });
    expect(await pageAfter(client, response)).toContain(message);
    expect(await storedMealIds(stack, email)).toEqual([]);
  });

  it('takes a decimal comma (12,5) but asks for a dot where the comma could group thousands (1,500)', async () => {
    const client = await newUser();
    expect((await postForm(client, '/meals', { ...item, carbs: '12,5' })).status).toBe(303);
    expect((await dayOf(client, DATE)).map((meal) => meal.carbs)).toEqual([12.5]);

    const refused = await postForm(client, '/meals', { ...item, carbs: '1,500' });
    expect(await pageAfter(client, refused)).toContain('Carbs: use a dot for decimals: 12.5');
    expect(await dayOf(client, DATE)).toHaveLength(1);
  });

  it('keeps every value typed into a refused new item, marks the field in plain words, and stores nothing', async () => {
    const client = await newUser();
    const typed = { ...item, carbs: '-5', protein: '3.5', fat: '', kcal: '120', absorptionType: 'RAPID' };
    const refused = await postForm(client, '/meals', typed);
    const html = unescaped(await pageAfter(client, refused));
    expect(html).toContain("The new item was not added: Carbs can't be negative.");
    expect(inputOf(html, '/meals', 'carbs')).toContain('value="-5"');
    expect(inputOf(html, '/meals', 'carbs')).toContain('aria-invalid="true" aria-describedby="meal-new-carbs-problem"');
    expect(html).toContain(`<span class="field-problem" id="meal-new-carbs-problem">Carbs can't be negative.</span>`);
    for (const [name, value] of [
      ['time', '08:15'],
      ['name', 'Oats'],
      ['protein', '3.5'],
      ['kcal', '120'],
    ]) {
      expect(inputOf(html, '/meals', name!)).toContain(`value="${value}"`);
      expect(inputOf(html, '/meals', name!)).not.toContain('aria-invalid');
    }
    expect(html).toMatch(/<option value="RAPID" selected>/);
    expect(await dayOf(client, DATE)).toEqual([]);

    const api = await client.postJson('/api/meals', { name: 'Oats', carbs: -5, logged_at: `${DATE}T08:15:00` });
    expect(await bodyOf(api)).toMatchObject({ fields: ['carbs'], message: 'carbs must not be negative' });
  });

  it('tells every problem at once, one for each field, in one style', async () => {
    const client = await newUser();
    const html = unescaped(await pageAfter(client, await postForm(client, '/meals', { ...item, name: '', carbs: '', protein: '-1' })));
    expect(html).toContain("The new item was not added: Name must not be empty. Carbs must be filled in. Protein can't be negative.");
    expect(html).toContain('<span class="field-problem" id="meal-new-carbs-problem">Carbs must be filled in.</span>');
    expect(await dayOf(client, DATE)).toEqual([]);
  });

  it('keeps the other typed values when a field arrives twice, and refuses only that field', async () => {
    const client = await newUser();
    const page = await (await client.get(`/meals?date=${DATE}`)).text();
    const fields = new URLSearchParams({ _csrf: hiddenField(page, '_csrf'), ...item, carbs: '12', kcal: '120' });
    fields.append('name', 'Rice');
    const refused = await client.request('/meals', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    const html = unescaped(await pageAfter(client, refused));
    expect(html).toContain('The new item was not added: Name must not be empty.');
    expect(html).toContain('Meals on Tue, 10 Mar 2026');
    for (const [name, value] of [
      ['time', '08:15'],
      ['carbs', '12'],
      ['kcal', '120'],
    ]) {
      expect(inputOf(html, '/meals', name!)).toContain(`value="${value}"`);
    }
    expect(await dayOf(client, DATE)).toEqual([]);
  });

  it('keeps the values typed into a refused edit in that item’s form rather than reverting it', async () => {
    const client = await newUser();
    const created = await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${DATE}T08:15:00+01:00` });
    const refused = await postForm(client, `/meals/${created.id}`, {
      ...item,
      originalTime: '08:15',
      name: 'Oats with honey',
      carbs: 'lots',
    });
    const html = unescaped(await pageAfter(client, refused));
    expect(html).toContain('“Oats” was not saved: Carbs must be a decimal number of grams, such as 12.5.');
    expect(inputOf(html, `/meals/${created.id}`, 'name')).toContain('value="Oats with honey"');
    expect(inputOf(html, `/meals/${created.id}`, 'carbs')).toContain('value="lots"');
    expect(inputOf(html, `/meals/${created.id}`, 'carbs')).toContain('aria-invalid="true"');
    expect(inputOf(html, '/meals', 'carbs')).toContain('value=""');
    expect(await dayOf(client, DATE)).toEqual([created]);
  });

  it('redirects after a saved form (post/redirect/get), so a reload shows the day rather than posting again', async () => {
    const client = await newUser();
    const saved = await postForm(client, '/meals', { ...item, carbs: '60' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`/meals?date=${DATE}`);
  });

  it('leads Back to a deleted item’s confirmation to its day, saying it was deleted, not that it does not exist', async () => {
    const client = await newUser();
    const created = await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${DATE}T08:15:00+01:00` });
    expect((await postForm(client, `/meals/${created.id}/delete`, { date: DATE })).status).toBe(303);
    const back = await client.get(`/meals/${created.id}/delete`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/meals?date=${DATE}`);
    expect(await (await client.get(back.headers.get('location')!)).text()).toContain('Oats at 08:15 on Tue, 10 Mar 2026 was deleted.');
  });

  it('answers 404 to a delete of an item that is not the user’s or does not exist, and deletes nothing', async () => {
    const owner = await newUser();
    const other = await newUser();
    const created = await addMeal(owner, { name: 'Oats', carbs: 60, logged_at: `${DATE}T08:15:00+01:00` });
    for (const id of [created.id, created.id + 1000]) {
      const response = await postForm(other, `/meals/${id}/delete`, { date: DATE });
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('No such meal item');
    }
    expect(await dayOf(owner, DATE)).toEqual([created]);
  });
});

describe('the meals page’s day at a glance', () => {
  it('totals the carbs and every declared amount, saying of how many items when not all give one', async () => {
    const client = await newUser();
    const [first, ...others] = AMOUNT_NAMES;
    await addMeal(client, { name: 'Oats', carbs: 40, [first!]: 10, logged_at: `${DATE}T08:00:00` });
    await addMeal(client, {
      name: 'Rice',
      carbs: 20.5,
      ...Object.fromEntries(AMOUNT_NAMES.map((name) => [name, 5])),
      logged_at: `${DATE}T12:00:00`,
    });
    const html = await (await client.get(`/meals?date=${DATE}`)).text();
    const total = (name: string) => html.match(new RegExp(`<div data-amount="${name}">\\s*<dt>[^<]*</dt>\\s*<dd>([^\\n]*)</dd>`))?.[1];
    expect(total('carbs')).toBe('60.5 g');
    expect(total(first!)).toMatch(/^15 /);
    for (const name of others) expect(total(name)).toMatch(/^5 \S+ <span class="hint">\(1 of 2 items\)<\/span>$/);
  });

  it('says an amount no item gives is not given, without a count of items', async () => {
    const client = await newUser();
    await addMeal(client, { name: 'Oats', carbs: 40, logged_at: `${DATE}T08:00:00` });
    const html = await (await client.get(`/meals?date=${DATE}`)).text();
    const [name] = AMOUNT_NAMES;
    expect(html).toMatch(new RegExp(`<div data-amount="${name!}">\\s*<dt>[^<]*</dt>\\s*<dd>not given</dd>`));
  });

  it('lists each item on one line that opens its form, a refused one coming back open', async () => {
    const client = await newUser();
    const oats = await addMeal(client, { name: 'Oats', carbs: 40, logged_at: `${DATE}T08:00:00` });
    const line = (html: string) => html.match(/<details class="meal-item"[^>]*>\s*<summary>[\s\S]*?<\/summary>/)![0];
    expect(line(await (await client.get(`/meals?date=${DATE}`)).text())).toMatch(
      /^<details class="meal-item">[\s\S]*Oats[\s\S]*Carbs 40 g/,
    );
    const refused = await postForm(client, `/meals/${String(oats.id)}`, { ...item, carbs: 'lots', originalTime: '08:00' });
    expect(line(await pageAfter(client, refused))).toMatch(/^<details class="meal-item" open>/);
  });
});

describe('the meals page’s latest day: the user’s tomorrow, as for wellness', () => {
  const zone = 'Pacific/Pago_Pago';
  const dayFromToday = (days: number) => DateTime.now().setZone(zone).plus({ days }).toISODate()!;

  it('takes an item of tomorrow, refuses one of the day after in plain words, and stores nothing', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    expect((await postForm(client, '/meals', { ...item, date: dayFromToday(1), carbs: '30' })).status).toBe(303);
    const refused = await postForm(client, '/meals', { ...item, date: dayFromToday(2), carbs: '30' });
    expect(await pageAfter(client, refused)).toContain(
      `Time must not be after ${dayFromToday(1)}, tomorrow in ${zone}: a meal cannot be of a later day.`,
    );
    expect(await storedMealIds(stack, email)).toHaveLength(1);
  });

  it('links no day after tomorrow, and shows such a day without a form to add to it', async () => {
    const client = await newUser(zone);
    const tomorrow = await (await client.get(`/meals?date=${dayFromToday(1)}`)).text();
    expect(tomorrow).not.toContain('rel="next"');
    expect(tomorrow).toContain('aria-label="Add an item"');
    const later = await (await client.get(`/meals?date=${dayFromToday(2)}`)).text();
    expect(later).not.toContain('aria-label="Add an item"');
    expect(later).toContain('Meals can be logged up to tomorrow');
  });
});

describe('the meals page’s times', () => {
  const travelling = '2026-11-23T23:30:00-05:00';

  it('shows an item logged at another offset at its own time and the user’s, and keeps its offset when saved', async () => {
    const client = await newUser('Europe/Berlin');
    const created = await addMeal(client, { name: 'Late dinner', carbs: 80, logged_at: travelling });
    const html = await (await client.get('/meals?date=2026-11-23')).text();
    expect(html).toContain('23:30 at UTC−05:00, 05:30 on 24 Nov your time');

    const token = hiddenField(html, '_csrf');
    const form = { _csrf: token, date: '2026-11-23', time: '23:30', originalTime: '23:30', name: 'Late dinner', carbs: '85' };
    expect((await client.postForm(`/meals/${created.id}`, form)).status).toBe(303);
    expect(await dayOf(client, '2026-11-23')).toMatchObject([{ carbs: 85, logged_at: travelling }]);

    expect((await client.postForm(`/meals/${created.id}`, { ...form, time: '22:00' })).status).toBe(303);
    expect(await dayOf(client, '2026-11-23')).toMatchObject([{ carbs: 85, logged_at: '2026-11-23T22:00:00+01:00' }]);
  });

  it.each([
    ['en-US,en;q=0.9', 'Meals on Mon, Nov 23, 2026', '11:30 PM at UTC−05:00, 5:30 AM on Nov 24 your time', 'Tue, Nov 24, 2026 →'],
    ['de-DE,de;q=0.9,en;q=0.8', 'Meals on Mo., 23. Nov. 2026', '23:30 at UTC−05:00, 05:30 on 24. Nov. your time', 'Di., 24. Nov. 2026 →'],
    [
      'tlh;q=0.9, de-LU;q=0.95, en;q=0.8',
      'Meals on Mo., 23. Nov. 2026',
      '23:30 at UTC−05:00, 05:30 on 24. Nov. your time',
      'Di., 24. Nov. 2026 →',
    ],
    ['tlh-x-not-a-locale-at-all, *', 'Meals on Mon, 23 Nov 2026', '23:30 at UTC−05:00, 05:30 on 24 Nov your time', 'Tue, 24 Nov 2026 →'],
  ])('writes the day and the times for Accept-Language %s in that locale’s words and clock', async (languages, heading, time, next) => {
    const client = await newUser('Europe/Berlin');
    await addMeal(client, { name: 'Late dinner', carbs: 80, logged_at: travelling });
    const html = await (await client.request('/meals?date=2026-11-23', { headers: { 'accept-language': languages } })).text();
    expect(html).toContain(`<h1>${heading}</h1>`);
    expect(html).toContain(time);
    expect(html).toContain(`rel="next">${next}</a>`);
  });

  it('shows an item at the user’s own offset once', async () => {
    const client = await newUser('Europe/Berlin');
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${DATE}T08:15:00+01:00` });
    const html = await (await client.get(`/meals?date=${DATE}`)).text();
    expect(html).toContain('08:15 at UTC+01:00</span>');
    expect(html).not.toMatch(/UTC\+01:00, /);
  });

  it('keeps the time as sent to the service under Details', async () => {
    const client = await newUser('Europe/Berlin');
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: `${DATE}T08:15:00+01:00` });
    const html = await (await client.get(`/meals?date=${DATE}`)).text();
    expect(html).toMatch(
      /<details class="sync-details"><summary>Details<\/summary>Sent to the service as <code>\d{4}-\d\d-\d\dT08:15:00\+01:00<\/code><\/details>/,
    );
    expect(html.replace(/<details[\s\S]*?<\/details>/g, '')).not.toContain('T08:15:00+01:00');
  });
});

describe('the meals page’s ?date=', () => {
  it.each([
    ['not-a-date', 'The address asks for the date “not-a-date”, which is not a date. Dates are written like 2026-11-23.'],
    ['2026-02-30', 'The address asks for 2026-02-30, a day the calendar does not have.'],
    ['2101-01-01', 'The address asks for 2101-01-01; dates go from 1900-01-01 to 2100-12-31.'],
  ])('answers %s with a 400 page naming the problem and a link to today, not another day', async (date, problem) => {
    const client = await newUser();
    const response = await client.get(`/meals?date=${encodeURIComponent(date)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(problem);
    expect(html).toContain('<a class="button" href="/meals">Go to today</a>');
    expect(html).not.toContain('Meals on');
  });

  it('prefills the new item’s time with the time it is now in the user’s zone', async () => {
    const client = await newUser('Asia/Kathmandu');
    const wallTime = () => DateTime.now().setZone('Asia/Kathmandu').toFormat('HH:mm');
    const before = wallTime();
    const html = await (await client.get(`/meals?date=${DATE}`)).text();
    const shown = inputOf(html, '/meals', 'time').match(/value="([^"]*)"/)![1];
    expect([before, wallTime()]).toContain(shown);
  });

  it('shows today without a date', async () => {
    const client = await newUser();
    expect((await client.get('/meals')).status).toBe(200);
  });
});
