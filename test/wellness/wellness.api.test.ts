import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELLNESS_MEASUREMENTS } from '../../src/wellness/wellness.fields.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, type ApiError, type CookieClient } from '../helpers/http-client.js';
import { syncStatus } from '../helpers/sync-status.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { EVERY_MEASUREMENT, MEASUREMENT_NAMES, NOW, deleteWellness, putWellness, sendWellness, wellnessDays } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ clock: () => NOW });
});
afterAll(async () => {
  await stack.close();
});

const DATE = '2026-11-20';
const full = EVERY_MEASUREMENT;

async function newUser(timezone = 'Europe/Berlin'): Promise<CookieClient> {
  const client = stack.browser();
  await signUpNewUser(client, timezone);
  return client;
}

async function outboxVersions(date: string) {
  return stack.db.selectFrom('outbox').select(['user_id', 'version']).where('kind', '=', 'wellness').where('subject', '=', date).execute();
}

describe('PUT /api/wellness/:date', () => {
  it('answers 200 with the stored record: the measurements entered, no others, never null', async () => {
    const client = await newUser();
    expect(await putWellness(client, DATE, { hrv: 48.5, sleepSecs: 27_000 })).toEqual({ date: DATE, hrv: 48.5, sleepSecs: 27_000 });
    expect(await wellnessDays(client, DATE)).toEqual([{ date: DATE, hrv: 48.5, sleepSecs: 27_000, sync: { status: 'pending' } }]);
  });

  it('replaces the whole record: a measurement left out is removed', async () => {
    const client = await newUser();
    await putWellness(client, DATE, full);
    expect(await putWellness(client, DATE, { weight: 70.9 })).toEqual({ date: DATE, weight: 70.9 });
    expect(await wellnessDays(client, DATE)).toMatchObject([{ date: DATE, weight: 70.9 }]);
    expect(Object.keys((await wellnessDays(client, DATE))[0]!)).toEqual(['date', 'weight', 'sync']);
  });

  it('makes one version of a record sent twice, so the service is sent it once', async () => {
    const client = await newUser();
    const date = '2026-11-01';
    await putWellness(client, date, full);
    await putWellness(client, date, { ...full });
    expect((await outboxVersions(date)).map((row) => row.version)).toEqual([1]);
    await putWellness(client, date, { ...full, hrv: 49 });
    expect((await outboxVersions(date)).map((row) => row.version)).toEqual([2]);
  });

  /** Each declared measurement's bounds, and the nearest values beyond them (a whole number, or a thousandth). */
  const bounds = MEASUREMENT_NAMES.map((name) => {
    const { min, max, integer } = WELLNESS_MEASUREMENTS[name];
    const step = integer ? 1 : 0.001;
    return [name, min, max, Number((min - step).toFixed(3)), Number((max + step).toFixed(3))] as const;
  });

  it.each(bounds)('takes %s from %d to %d, and refuses %d and %d naming it', async (field, min, max, below, above) => {
    const client = await newUser();
    expect(await putWellness(client, DATE, { [field]: min })).toEqual({ date: DATE, [field]: min });
    expect(await putWellness(client, DATE, { [field]: max })).toEqual({ date: DATE, [field]: max });
    for (const value of [below, above]) {
      const response = await sendWellness(client, DATE, { ...full, [field]: value });
      expect(response.status).toBe(400);
      expect((await bodyOf<ApiError>(response)).fields).toEqual([field]);
    }
    expect(await wellnessDays(client, DATE)).toMatchObject([{ date: DATE, [field]: max }]);
  });

  it.each([
    [{ restingHr: 52.5 }, 'restingHr', 'restingHr must be a whole number of beats per minute from 20 to 250'],
    [{ sleepSecs: 3600.5 }, 'sleepSecs', 'sleepSecs must be a whole number of seconds from 0 to 86400'],
    [{ hrv: '48' }, 'hrv', 'hrv must be a number of milliseconds from 1 to 500'],
    [{ weight: null }, 'weight', 'weight must be a number of kilograms from 20 to 400'],
    [{ vo2max: true }, 'vo2max', 'vo2max must be a number of ml/kg/min from 10 to 100'],
    [{ hrv: [48] }, 'hrv', 'hrv must be a number of milliseconds from 1 to 500'],
    [{ hrv: 48, steps: 10_000 }, 'steps', 'steps is not a known field'],
    [{ hrv: 48, date: DATE }, 'date', 'date is not a known field'],
    [{}, 'body', `body must hold at least one of ${MEASUREMENT_NAMES.join(', ')}`],
  ])('answers 400 naming the field and stores nothing (%j)', async (body, field, message) => {
    const client = await newUser();
    const response = await sendWellness(client, DATE, body);
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual({ error: 'invalid_request', fields: [field], message });
    expect(await wellnessDays(client, DATE)).toEqual([]);
  });

  it.each([[[]], [null], ['hrv'], [48]])('answers 400 to a body that is not an object (%j)', async (body) => {
    const client = await newUser();
    expect((await sendWellness(client, DATE, body)).status).toBe(400);
    expect(await wellnessDays(client, DATE)).toEqual([]);
  });

  it.each(['2026-02-30', '1899-12-31', '2026-11-2', 'today'])('answers 400 naming date for %s', async (date) => {
    const client = await newUser();
    const response = await sendWellness(client, date, full);
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['date']);
  });

  it.each([
    ['Pacific/Kiritimati', '2026-11-25', '2026-11-26'],
    ['Pacific/Pago_Pago', '2026-11-24', '2026-11-25'],
  ])(
    'takes up to the user’s tomorrow in %s (%s), and refuses %s: a measurement of the future is a mistake',
    async (zone, tomorrow, later) => {
      const client = await newUser(zone);
      expect(await putWellness(client, tomorrow, { hrv: 50 })).toEqual({ date: tomorrow, hrv: 50 });
      const response = await sendWellness(client, later, { hrv: 50 });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toEqual({
        error: 'invalid_request',
        fields: ['date'],
        message: `date must not be after ${tomorrow}, tomorrow in ${zone}: a measurement cannot be of a later day`,
      });
      expect(await wellnessDays(client, tomorrow, later)).toMatchObject([{ date: tomorrow }]);
    },
  );

  it('answers 401 when signed out', async () => {
    expect((await sendWellness(stack.browser(), DATE, full)).status).toBe(401);
  });
});

describe('GET /api/wellness', () => {
  it('lists the recorded days of the range, oldest first, with the range it covers', async () => {
    const client = await newUser();
    await putWellness(client, '2026-11-03', { weight: 70 });
    await putWellness(client, '2026-11-01', { hrv: 40 });
    await putWellness(client, '2026-10-31', { hrv: 41 });
    const response = await client.get('/api/wellness?from=2026-11-01&to=2026-11-30');
    expect(await bodyOf(response)).toEqual({
      from: '2026-11-01',
      to: '2026-11-30',
      days: [
        { date: '2026-11-01', hrv: 40, sync: { status: 'pending' } },
        { date: '2026-11-03', weight: 70, sync: { status: 'pending' } },
      ],
    });
  });

  it.each([
    ['from=2024-01-01&to=2024-12-31', 200],
    ['from=2024-01-01&to=2025-01-01', 400],
    ['from=2026-11-02&to=2026-11-01', 400],
    ['from=2026-11-01', 400],
    ['to=2026-11-01', 400],
    ['from=2026-11-01&to=2026-11-31', 400],
  ])('takes at most 366 days, from before to (%s → %d)', async (query, status) => {
    const client = await newUser();
    expect((await client.get(`/api/wellness?${query}`)).status).toBe(status);
  });

  it('answers 401 when signed out', async () => {
    expect((await stack.browser().get(`/api/wellness?from=${DATE}&to=${DATE}`)).status).toBe(401);
  });
});

describe('DELETE /api/wellness/:date', () => {
  it('deletes the day and stops syncing it; a second delete is 404', async () => {
    const client = await newUser();
    await putWellness(client, DATE, full);
    expect((await syncStatus(client, DATE)).map((day) => day.kind)).toEqual(['wellness']);
    expect((await deleteWellness(client, DATE)).status).toBe(204);
    expect(await wellnessDays(client, DATE)).toEqual([]);
    expect(await syncStatus(client, DATE)).toEqual([]);
    const again = await deleteWellness(client, DATE);
    expect(again.status).toBe(404);
    expect((await bodyOf<ApiError>(again)).error).toBe('not_found');
  });

  it('answers 404 for a day never recorded, and 400 for a date that is not one', async () => {
    const client = await newUser();
    expect((await deleteWellness(client, '2026-11-02')).status).toBe(404);
    expect((await deleteWellness(client, '2026-13-01')).status).toBe(400);
  });
});

describe('another user’s wellness', () => {
  it('is invisible, cannot be deleted, and is not touched by the same date of someone else', async () => {
    const owner = await newUser();
    const other = await newUser();
    await putWellness(owner, DATE, full);
    expect(await wellnessDays(other, DATE)).toEqual([]);
    expect((await deleteWellness(other, DATE)).status).toBe(404);
    await putWellness(other, DATE, { hrv: 90 });
    expect(await wellnessDays(owner, DATE)).toMatchObject([{ date: DATE, ...full }]);
    expect(await wellnessDays(other, DATE)).toMatchObject([{ date: DATE, hrv: 90 }]);
  });
});
