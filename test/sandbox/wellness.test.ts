import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeSettings, obtainTokens, postJson, startSandbox, type RunningSandbox } from './helpers.js';

let sandbox: RunningSandbox;
let accessToken: string;
beforeEach(async () => {
  sandbox = await startSandbox();
  accessToken = (await obtainTokens(sandbox, 'health:write')).access_token;
});
afterEach(() => sandbox.stop());

const day = { date: '2026-03-01', hrv: 62.5, restingHr: 48, sleepSecs: 27_000, weight: 70.4, vo2max: 55.1, rawJson: { device: 'ring' } };

const postWellness = (body: unknown) => postJson(sandbox, '/api/wellness', body, accessToken);

/** Ada's stored wellness records by date, read from the sandbox's memory. */
function wellnessByDate(): Record<string, unknown> {
  return Object.fromEntries(sandbox.runtime.state.athletes.get('Ada')?.wellness ?? []);
}

describe('POST /api/wellness refuses an invalid payload, naming the field', () => {
  it.each<[string, unknown, string]>([
    ['no date', { hrv: 60 }, 'date'],
    ['a date that does not exist', { ...day, date: '2026-02-30' }, 'date'],
    ['a date-time at an hour that does not exist', { ...day, date: '2026-03-01T25:00:00Z' }, 'date'],
    ['a date-time without an offset', { ...day, date: '2026-03-01T07:00:00' }, 'date'],
    ['a date written otherwise', { ...day, date: '03/01/2026' }, 'date'],
    ['hrv as a string', { ...day, hrv: '62' }, 'hrv'],
    ['hrv as null', { ...day, hrv: null }, 'hrv'],
    ['restingHr with a fraction', { ...day, restingHr: 48.5 }, 'restingHr'],
    ['restingHr as a string', { ...day, restingHr: '48' }, 'restingHr'],
    ['sleepSecs with a fraction', { ...day, sleepSecs: 27_000.5 }, 'sleepSecs'],
    ['sleepSecs as a string', { ...day, sleepSecs: '7h' }, 'sleepSecs'],
    ['weight as a string', { ...day, weight: '70kg' }, 'weight'],
    ['vo2max as a boolean', { ...day, vo2max: true }, 'vo2max'],
    ['rawJson that is a list', { ...day, rawJson: [] }, 'rawJson'],
    ['rawJson that is null', { ...day, rawJson: null }, 'rawJson'],
  ])('%s', async (_case, body, field) => {
    const response = await postWellness(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', fields: [field] });
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await fetch(new URL('/api/wellness', sandbox.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'date=2026-03-01',
    });
    expect(response.status).toBe(415);
  });
});

describe('POST /api/wellness stores what it was sent', () => {
  it('accepts a record with only a date', async () => {
    expect((await postWellness({ date: '2026-03-01' })).status).toBe(201);
  });

  it('keys a date-time by the calendar date as written, whatever the offset', async () => {
    const response = await postWellness({ ...day, date: '2026-03-01T23:30:00-05:00' });
    expect(await response.json()).toMatchObject({ date: '2026-03-01' });
    expect(Object.keys(wellnessByDate())).toEqual(['2026-03-01']);
  });

  it('keeps fields the document does not show', async () => {
    await postWellness({ ...day, bodyBattery: 80, stress: { avg: 31 } });
    expect(wellnessByDate()['2026-03-01']).toMatchObject({ payload: { bodyBattery: 80, stress: { avg: 31 } } });
  });
});

describe('POST /api/wellness with strictFields', () => {
  beforeEach(async () => {
    expect((await changeSettings(sandbox, { strictFields: true })).status).toBe(200);
  });

  it('refuses fields the document does not show with 400, naming each, and stores nothing', async () => {
    const response = await postWellness({ ...day, bodyBattery: 80, hydrationMl: 1500 });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description:
        'bodyBattery, hydrationMl: is not a field the interface document shows (the sandbox refuses these with strictFields on)',
      fields: ['bodyBattery', 'hydrationMl'],
    });
    expect(wellnessByDate()).toEqual({});
  });

  it('takes every field the document shows, and anything inside rawJson', async () => {
    expect((await postWellness({ ...day, rawJson: { hydrationMl: 1500, nested: { any: 'thing' } } })).status).toBe(201);
  });

  it('replaces the record of a date on a second upsert', async () => {
    expect((await postWellness(day)).status).toBe(201);
    const second = { date: '2026-03-01', restingHr: 50 };
    expect((await postWellness(second)).status).toBe(200);
    expect(wellnessByDate()).toEqual({ '2026-03-01': expect.objectContaining({ payload: second, writes: 2 }) });
  });

  it('treats a date and a date-time of the same day as the same record', async () => {
    await postWellness({ date: '2026-03-01', hrv: 60 });
    await postWellness({ date: '2026-03-01T06:00:00+02:00', hrv: 70 });
    expect(wellnessByDate()).toEqual({ '2026-03-01': expect.objectContaining({ writes: 2 }) });
  });
});
