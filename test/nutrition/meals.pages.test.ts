import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MealView } from '../../src/nutrition/meals.js';
import { signUpNewUser } from '../helpers/flows.js';
import { addMeal, storedMealIds } from '../helpers/meals.js';
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

async function dayOf(client: CookieClient, date: string): Promise<MealView[]> {
  return (await bodyOf<{ meals: MealView[] }>(await client.get(`/api/meals?date=${date}`))).meals;
}

const item = { date: DATE, time: '08:15', name: 'Oats' };

describe('the meals page’s form', () => {
  it.each(['0x10', '0b101', '1e3', 'Infinity'])('refuses carbs written %s, takes 12.5: decimal numbers only', async (carbs) => {
    const client = await newUser();
    const refused = await postForm(client, '/meals', { ...item, carbs });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('carbs must be a decimal number of grams, such as 12.5');
    expect(await dayOf(client, DATE)).toEqual([]);

    expect((await postForm(client, '/meals', { ...item, carbs: ' 12.5 ' })).status).toBe(303);
    expect((await dayOf(client, DATE)).map((meal) => meal.carbs)).toEqual([12.5]);
  });

  it.each([
    ['Europe/Berlin', '2101-01-01', 'logged_at must fall between 1900-01-01 and 2100-12-31, both in UTC and in its local time'],
    [
      'Africa/Monrovia',
      '1970-06-01',
      'logged_at is at a time when Africa/Monrovia was at -00:44:30, which cannot be sent as ±hh:mm; give the time with an explicit offset',
    ],
  ])('refuses a time that cannot be placed (%s, %s) with a message, and stores nothing', async (zone, date, message) => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    const response = await postForm(client, '/meals', { ...item, date, carbs: '60' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(message);
    expect(await storedMealIds(stack, email)).toEqual([]);
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
