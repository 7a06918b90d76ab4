import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeSettings, obtainTokens, postJson, readState, startSandbox, type RunningSandbox } from './helpers.js';

let sandbox: RunningSandbox;
let accessToken: string;
beforeEach(async () => {
  sandbox = await startSandbox();
  accessToken = (await obtainTokens(sandbox, 'nutrition:write')).access_token;
});
afterEach(() => sandbox.stop());

const item = { name: 'Oats', carbs: 54.5, logged_at: '2026-03-01T07:30:00+01:00', absorptionType: 'RAPID' };
const day = { date: '2026-03-01', items: [item], rawJson: { source: 'app' } };

const postNutrition = (body: unknown) => postJson(sandbox, '/api/nutrition', body, accessToken);

describe('POST /api/nutrition refuses an invalid payload, naming the field', () => {
  it.each<[string, unknown, string]>([
    ['a date that does not exist', { ...day, date: '2026-02-30' }, 'date'],
    ['a date that is not a date', { ...day, date: 'yesterday' }, 'date'],
    ['a date-time instead of a date', { ...day, date: '2026-03-01T00:00:00Z' }, 'date'],
    ['a date written otherwise', { ...day, date: '01/03/2026' }, 'date'],
    ['no date', { items: [item] }, 'date'],
    ['no items', { date: '2026-03-01' }, 'items'],
    ['items that are not a list', { ...day, items: item }, 'items'],
    ['an item without a name', { ...day, items: [{ ...item, name: undefined }] }, 'items.0.name'],
    ['an item with a blank name', { ...day, items: [{ ...item, name: '  ' }] }, 'items.0.name'],
    ['carbs as a string', { ...day, items: [item, { ...item, carbs: '54' }] }, 'items.1.carbs'],
    ['no carbs', { ...day, items: [{ ...item, carbs: undefined }] }, 'items.0.carbs'],
    ['logged_at without an offset', { ...day, items: [{ ...item, logged_at: '2026-03-01T07:30:00' }] }, 'items.0.logged_at'],
    ['logged_at without seconds', { ...day, items: [{ ...item, logged_at: '2026-03-01T07:30+01:00' }] }, 'items.0.logged_at'],
    ['logged_at on a day that does not exist', { ...day, items: [{ ...item, logged_at: '2026-02-30T07:30:00Z' }] }, 'items.0.logged_at'],
    ['logged_at as a number', { ...day, items: [{ ...item, logged_at: 1772346600 }] }, 'items.0.logged_at'],
    ['an empty absorptionType', { ...day, items: [{ ...item, absorptionType: '' }] }, 'items.0.absorptionType'],
    ['rawJson that is a list', { ...day, rawJson: [1, 2] }, 'rawJson'],
    ['rawJson that is a string', { ...day, rawJson: '{"a":1}' }, 'rawJson'],
    ['a body that is a list', [day], 'body'],
  ])('%s', async (_case, body, field) => {
    const response = await postNutrition(body);
    expect(response.status).toBe(400);
    const answer: unknown = await response.json();
    expect(answer).toMatchObject({ error: 'invalid_request', fields: [field] });
    expect(answer).toMatchObject({ error_description: expect.stringContaining(`${field}: `) });
  });

  it('names every bad field at once', async () => {
    const response = await postNutrition({ date: 'soon', items: [{ name: '', carbs: 'lots', logged_at: 'now' }] });
    expect(await response.json()).toMatchObject({
      fields: ['date', 'items.0.name', 'items.0.carbs', 'items.0.logged_at'],
    });
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await fetch(new URL('/api/nutrition', sandbox.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'text/plain' },
      body: JSON.stringify(day),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('answers malformed JSON with a JSON 400', async () => {
    const response = await fetch(new URL('/api/nutrition', sandbox.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: '{"date": "2026-03-01",',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('POST /api/nutrition stores what it was sent', () => {
  it('accepts offsets, Z and fractional seconds in logged_at', async () => {
    const items = ['2026-03-01T07:30:00Z', '2026-03-01T07:30:00.250-05:00', '2026-03-01T23:59:59+14:00'].map((loggedAt) => ({
      ...item,
      logged_at: loggedAt,
    }));
    expect((await postNutrition({ ...day, items })).status).toBe(201);
  });

  it('keeps fields the document does not show', async () => {
    const body = { ...day, calories: 2100, items: [{ ...item, protein: 12, fiber: { grams: 8 } }] };
    expect((await postNutrition(body)).status).toBe(201);
    expect(await readState(sandbox)).toMatchObject({
      athletes: { Ada: { nutrition: { '2026-03-01': { payload: body } } } },
    });
  });

  it('replaces the day on a second upsert instead of adding to it', async () => {
    const first = await postNutrition(day);
    expect(first.status).toBe(201);
    const secondDay = { date: '2026-03-01', items: [{ ...item, name: 'Banana', carbs: 27 }] };
    const second = await postNutrition(secondDay);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ date: '2026-03-01', writes: 2 });

    const state = await readState(sandbox);
    expect(state).toMatchObject({ athletes: { Ada: { nutrition: { '2026-03-01': { writes: 2 } } } } });
    expect(state).toHaveProperty(['athletes', 'Ada', 'nutrition', '2026-03-01', 'payload'], secondDay);
    expect(Object.keys(nutritionByDate())).toEqual(['2026-03-01']);
  });

  it('accepts an empty day, which clears the items of that date', async () => {
    await postNutrition(day);
    expect((await postNutrition({ date: '2026-03-01', items: [] })).status).toBe(200);
    expect(nutritionByDate()['2026-03-01']).toMatchObject({ payload: { items: [] }, writes: 2 });
  });

  it('keeps different dates apart', async () => {
    await postNutrition(day);
    await postNutrition({ ...day, date: '2026-03-02' });
    expect(Object.keys(nutritionByDate())).toEqual(['2026-03-01', '2026-03-02']);
  });
});

describe('POST /api/nutrition with strictFields', () => {
  beforeEach(async () => {
    expect((await changeSettings(sandbox, { strictFields: true })).status).toBe(200);
  });

  it('refuses a field of the record or of an item the document does not show, naming it', async () => {
    const response = await postNutrition({ ...day, calories: 2100, items: [item, { ...item, protein: 12 }] });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', fields: ['items.1.protein', 'calories'] });
    expect(nutritionByDate()).toEqual({});
  });

  it('takes every field the document shows, and anything inside rawJson', async () => {
    expect((await postNutrition({ ...day, rawJson: { items: [{ protein: 12 }] } })).status).toBe(201);
  });
});

/** Ada's stored nutrition records by date, read from the sandbox's memory. */
function nutritionByDate(): Record<string, unknown> {
  return Object.fromEntries(sandbox.runtime.state.athletes.get('Ada')?.nutrition ?? []);
}
