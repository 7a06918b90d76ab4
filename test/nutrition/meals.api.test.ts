import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MealView } from '../../src/nutrition/meals.js';
import { signUpNewUser } from '../helpers/flows.js';
import { addMeal, storedMealIds } from './helpers.js';
import { syncStatus } from '../helpers/sync-status.js';
import { bodyOf, type ApiError, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { MEAL_MAX_ITEMS_PER_DAY: '3', ABSORPTION_TYPES: 'RAPID,SLOW' } });
});
afterAll(async () => {
  await stack.close();
});

const meal = { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00' };

async function newUser(timezone = 'Europe/Berlin'): Promise<CookieClient> {
  const client = stack.browser();
  await signUpNewUser(client, timezone);
  return client;
}

async function dayOf(client: CookieClient, date: string): Promise<MealView[]> {
  return (await bodyOf<{ meals: MealView[] }>(await client.get(`/api/meals?date=${date}`))).meals;
}

describe('POST /api/meals', () => {
  it('answers 201 with the item, its local date, and logged_at as it will be sent', async () => {
    const client = await newUser();
    const created = await addMeal(client, { ...meal, protein: 12, absorptionType: 'RAPID' });
    expect(created).toEqual({
      id: expect.any(Number),
      name: 'Oats',
      carbs: 60,
      protein: 12,
      absorptionType: 'RAPID',
      logged_at: '2026-03-10T08:15:00+01:00',
      date: '2026-03-10',
    });
  });

  it('files a UTC time under the local day of the user’s zone, with that offset', async () => {
    const client = await newUser('Asia/Kathmandu');
    const created = await addMeal(client, { ...meal, logged_at: '2026-03-10T20:30:00Z' });
    expect(created).toMatchObject({ logged_at: '2026-03-11T02:15:00+05:45', date: '2026-03-11' });
  });

  it('reads a time without offset as wall time in the user’s zone', async () => {
    const client = await newUser('America/St_Johns');
    const created = await addMeal(client, { ...meal, logged_at: '2026-07-01T23:45' });
    expect(created).toMatchObject({ logged_at: '2026-07-01T23:45:00-02:30', date: '2026-07-01' });
  });

  it.each([
    [{ ...meal, carbs: '60' }, 'carbs'],
    [{ ...meal, carbs: -1 }, 'carbs'],
    [{ ...meal, carbs: 1_000_001 }, 'carbs'],
    [{ ...meal, name: '' }, 'name'],
    [{ ...meal, name: 'x'.repeat(121) }, 'name'],
    [{ ...meal, logged_at: '2026-02-30T08:00:00Z' }, 'logged_at'],
    [{ ...meal, logged_at: 'yesterday' }, 'logged_at'],
    [{ ...meal, absorptionType: 'FAST' }, 'absorptionType'],
    [{ name: 'Oats', logged_at: meal.logged_at }, 'carbs'],
    [{ ...meal, sugar: 3 }, 'sugar'],
    [{ ...meal, logged_at: '9999-12-31T23:30:00Z' }, 'logged_at'],
    [{ ...meal, logged_at: '1899-12-31T12:00:00+01:00' }, 'logged_at'],
    [{ ...meal, name: 'Oats\u0000' }, 'name'],
    [{ ...meal, name: 'Oats \u0007 and milk' }, 'name'],
    [{ ...meal, name: 'Oats\u007f' }, 'name'],
    [{ ...meal, name: '\u202Estao' }, 'name'],
    [{ ...meal, name: 'Oats \u2066and\u2069 milk' }, 'name'],
  ])('answers 400 naming the field and writes nothing (%j)', async (body, field) => {
    const client = await newUser();
    const response = await client.postJson('/api/meals', body);
    expect(response.status).toBe(400);
    const error = await bodyOf<ApiError>(response);
    expect(error.fields).toEqual([field]);
    expect(await dayOf(client, '2026-03-10')).toEqual([]);
  });

  it.each([
    ['Europe/Berlin', '2100-12-31T23:30:00Z', 'its local date would be 2101-01-01'],
    ['America/New_York', '1900-01-01T00:00:00Z', 'its local date would be 1899-12-31'],
    ['Asia/Tokyo', '1900-01-01T00:30:00+01:00', 'its instant is 1899-12-31T23:30:00Z'],
  ])('answers 400 naming logged_at for a time outside 1900–2100, and stores nothing (for a user in %s, %s: %s)', async (zone, loggedAt) => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    const response = await client.postJson('/api/meals', { ...meal, logged_at: loggedAt });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'invalid_request',
      fields: ['logged_at'],
      message: 'logged_at must fall between 1900-01-01 and 2100-12-31, both in UTC and in its local time',
    });
    expect(await storedMealIds(stack, email)).toEqual([]);
  });

  it('takes the first supported date, and lists the last', async () => {
    const client = await newUser('Asia/Tokyo');
    expect(await addMeal(client, { ...meal, logged_at: '1900-01-01T00:00:00+00:00' })).toMatchObject({ date: '1900-01-01' });
    expect((await client.get('/api/meals?date=2100-12-31')).status).toBe(200);
    const outside = await client.get('/api/meals?date=1899-12-31');
    expect(outside.status).toBe(400);
    expect((await bodyOf<ApiError>(outside)).message).toBe('date must be a date as YYYY-MM-DD from 1900-01-01 to 2100-12-31');
  });

  it('refuses a time its user zone had an offset with seconds at, rather than moving it, and takes it with an explicit offset', async () => {
    // Africa/Monrovia was at -00:44:30 until 1972: ±hh:mm cannot say that.
    const client = await newUser('Africa/Monrovia');
    for (const loggedAt of ['1970-06-01T12:00:00Z', '1970-06-01T12:00']) {
      const response = await client.postJson('/api/meals', { ...meal, logged_at: loggedAt });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toMatchObject({
        fields: ['logged_at'],
        message:
          'logged_at is at a time when Africa/Monrovia was at -00:44:30, which cannot be sent as ±hh:mm; give the time with an explicit offset',
      });
    }
    expect(await dayOf(client, '1970-06-01')).toEqual([]);
    expect(await addMeal(client, { ...meal, logged_at: '1970-06-01T12:00:00-00:45' })).toMatchObject({
      logged_at: '1970-06-01T12:00:00-00:45',
      date: '1970-06-01',
    });
  });

  it('refuses more items than a day may hold, with a clear message', async () => {
    const client = await newUser();
    for (let i = 0; i < 3; i++) await addMeal(client, meal);
    const response = await client.postJson('/api/meals', meal);
    expect(response.status).toBe(409);
    expect((await bodyOf<ApiError>(response)).message).toContain('already has 3 items');
  });

  it('answers 401 when signed out', async () => {
    expect((await stack.browser().postJson('/api/meals', meal)).status).toBe(401);
  });
});

describe('the latest day a meal may be of: the user’s tomorrow, as for wellness', () => {
  const zone = 'Pacific/Kiritimati';
  const tomorrow = () => DateTime.now().setZone(zone).plus({ days: 1 }).toISODate()!;
  const dayAfter = () => DateTime.now().setZone(zone).plus({ days: 2 }).toISODate()!;
  const refusal = () => ({
    error: 'invalid_request',
    fields: ['logged_at'],
    message: `logged_at must not be after ${tomorrow()}, tomorrow in ${zone}: a meal cannot be of a later day`,
  });

  it('takes a meal of tomorrow in the user’s zone, and refuses one of the day after, storing nothing', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    expect(await addMeal(client, { ...meal, logged_at: `${tomorrow()}T23:59:59` })).toMatchObject({ date: tomorrow() });
    for (const loggedAt of [`${dayAfter()}T00:00:00`, '2100-12-31T00:00:00Z']) {
      const response = await client.postJson('/api/meals', { ...meal, logged_at: loggedAt });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toEqual(refusal());
    }
    expect(await storedMealIds(stack, email)).toHaveLength(1);
  });

  it('refuses a change that moves an item past tomorrow, and changes nothing', async () => {
    const client = await newUser(zone);
    const created = await addMeal(client, meal);
    const response = await client.request(`/api/meals/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logged_at: `${dayAfter()}T08:00:00` }),
    });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual(refusal());
    expect(await dayOf(client, created.date)).toEqual([created]);
  });

  it('refuses a whole import holding an item past tomorrow, naming its index', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client, zone);
    const response = await client.postJson('/api/meals/batch', { items: [meal, { ...meal, logged_at: `${dayAfter()}T08:00:00` }] });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toMatchObject({ fields: ['items.1.logged_at'] });
    expect(await storedMealIds(stack, email)).toEqual([]);
  });
});

describe('GET, PATCH and DELETE /api/meals', () => {
  it('lists a day’s items in the order they were eaten, whatever their offsets', async () => {
    const client = await newUser();
    await addMeal(client, { ...meal, name: 'late', logged_at: '2026-03-10T20:00:00+01:00' });
    await addMeal(client, { ...meal, name: 'early, abroad', logged_at: '2026-03-10T06:00:00-05:00' });
    await addMeal(client, { ...meal, name: 'first', logged_at: '2026-03-10T07:00:00+01:00' });
    expect((await dayOf(client, '2026-03-10')).map((item) => item.name)).toEqual(['first', 'early, abroad', 'late']);
  });

  it('changes an item, and a move to another day marks both days for sync', async () => {
    const client = await newUser();
    const created = await addMeal(client, meal);
    const response = await client.request(`/api/meals/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logged_at: '2026-03-11T09:00:00+01:00', protein: null, carbs: 55 }),
    });
    expect(response.status).toBe(200);
    expect(await bodyOf<MealView>(response)).toMatchObject({ carbs: 55, date: '2026-03-11' });
    expect(await dayOf(client, '2026-03-10')).toEqual([]);
    expect((await syncStatus(client, '2026-03-10', '2026-03-11')).map((day) => [day.date, day.status])).toEqual([
      ['2026-03-10', 'pending'],
      ['2026-03-11', 'pending'],
    ]);
  });

  it('removes an optional field with null in a PATCH', async () => {
    const client = await newUser();
    const created = await addMeal(client, { ...meal, fat: 4 });
    const response = await client.request(`/api/meals/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fat: null }),
    });
    expect(await bodyOf<MealView>(response)).not.toHaveProperty('fat');
  });

  it('deletes an item (204)', async () => {
    const client = await newUser();
    const created = await addMeal(client, meal);
    expect((await client.request(`/api/meals/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await dayOf(client, '2026-03-10')).toEqual([]);
    expect((await client.request(`/api/meals/${created.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('never gives a deleted item’s id to a new one, so a delete sent again (its 204 lost) deletes nothing', async () => {
    const client = await newUser();
    const deleted = await addMeal(client, meal);
    expect((await client.request(`/api/meals/${deleted.id}`, { method: 'DELETE' })).status).toBe(204);
    const added = await addMeal(client, { ...meal, name: 'Rice' });
    expect(added.id).not.toBe(deleted.id);
    expect((await client.request(`/api/meals/${deleted.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await dayOf(client, '2026-03-10')).toEqual([added]);
  });

  it('never lets a user see or touch another user’s items', async () => {
    const owner = await newUser();
    const other = await newUser();
    const created = await addMeal(owner, meal);
    expect(await dayOf(other, '2026-03-10')).toEqual([]);
    const patch = await other.request(`/api/meals/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ carbs: 1 }),
    });
    expect(patch.status).toBe(404);
    expect((await other.request(`/api/meals/${created.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await dayOf(owner, '2026-03-10')).toEqual([created]);
  });

  it('answers 404 for an id larger than any row can have, on every database', async () => {
    const client = await newUser();
    const tooLarge = 2 ** 31;
    const patch = await client.request(`/api/meals/${tooLarge}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ carbs: 1 }),
    });
    expect(patch.status).toBe(404);
    expect((await client.request(`/api/meals/${tooLarge}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps old items on their day when the user’s zone changes', async () => {
    const client = await newUser('Europe/Berlin');
    const created = await addMeal(client, { ...meal, logged_at: '2026-03-10T23:30' });
    const dashboard = await (await client.get('/')).text();
    const csrf = dashboard.match(/name="_csrf" value="([^"]+)"/)![1]!;
    await client.postForm('/settings/timezone', { timezone: 'America/Los_Angeles', _csrf: csrf });
    expect(await dayOf(client, '2026-03-10')).toEqual([created]);
  });

  it('answers 400 naming logged_at when a change would move an item outside 1900–2100, and changes nothing', async () => {
    const client = await newUser();
    const created = await addMeal(client, meal);
    const response = await client.request(`/api/meals/${created.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logged_at: '9999-12-31T23:30:00Z', carbs: 1 }),
    });
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['logged_at']);
    expect(await dayOf(client, '2026-03-10')).toEqual([created]);
  });

  it('answers 400 for a list without a valid date', async () => {
    const client = await newUser();
    const response = await client.get('/api/meals?date=2026-13-01');
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['date']);
  });
});

describe('GET /api/sync/status', () => {
  it('answers 400 when to is before from', async () => {
    const client = await newUser();
    const response = await client.get('/api/sync/status?from=2026-03-10&to=2026-03-09');
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['to']);
  });

  it('answers 400 for a date outside 1900–2100', async () => {
    const client = await newUser();
    const response = await client.get('/api/sync/status?from=1899-12-31&to=1900-01-31');
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['from']);
  });

  it('lists only days that changed, as pending until synced', async () => {
    const client = await newUser();
    await addMeal(client, meal);
    expect(await syncStatus(client, '2026-03-01', '2026-03-31')).toEqual([{ kind: 'nutrition', date: '2026-03-10', status: 'pending' }]);
  });
});
