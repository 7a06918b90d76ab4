import { expect } from 'vitest';
import { fieldNames } from '../../src/fields/field-values.js';
import { FORM_COLUMNS } from '../../src/wellness/wellness-form.js';
import { WELLNESS_MEASUREMENTS } from '../../src/wellness/wellness.fields.js';
import type { Measurements } from '../../src/wellness/wellness.schemas.js';
import type { WellnessDayView, WellnessRecordView } from '../../src/wellness/wellness.js';
import { bodyOf, type CookieClient } from '../helpers/http-client.js';

/**
 * A fixed "now" for the app's clock in wellness tests, so the user's today and tomorrow are known:
 * 2026-11-24T02:00 in Pacific/Kiritimati (+14:00), 2026-11-23T01:00 in Pacific/Pago_Pago (-11:00).
 */
export const NOW = new Date('2026-11-23T12:00:00Z');

/** The names of the declared measurements (src/wellness/wellness.fields.ts), in their order. */
export const MEASUREMENT_NAMES = fieldNames(WELLNESS_MEASUREMENTS);

/** A day with every declared measurement entered, each a value within its bounds. */
export const EVERY_MEASUREMENT: Measurements = Object.fromEntries(
  MEASUREMENT_NAMES.map((name) => {
    const { min, max, integer } = WELLNESS_MEASUREMENTS[name];
    const middle = Math.round((min + max) / 2);
    return [name, integer ? middle : middle + 0.5];
  }),
);

/** The wellness page's row with every field left empty, as a browser sends it: no measurement taken. */
export const BLANK_WELLNESS_FORM: Record<string, string> = Object.fromEntries(
  FORM_COLUMNS.flatMap((column) => column.fields).map((field) => [field.name, '']),
);

/** PUT /api/wellness/:date, as the partner's app would. */
export function sendWellness(client: CookieClient, date: string, body: unknown): Promise<Response> {
  return client.request(`/api/wellness/${date}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Records a day through the JSON API and returns the stored record. */
export async function putWellness(client: CookieClient, date: string, body: Record<string, unknown>): Promise<WellnessRecordView> {
  const response = await sendWellness(client, date, body);
  expect(response.status).toBe(200);
  return bodyOf<WellnessRecordView>(response);
}

export async function wellnessDays(client: CookieClient, from: string, to = from): Promise<WellnessDayView[]> {
  const response = await client.get(`/api/wellness?from=${from}&to=${to}`);
  expect(response.status).toBe(200);
  return (await bodyOf<{ days: WellnessDayView[] }>(response)).days;
}

export function deleteWellness(client: CookieClient, date: string): Promise<Response> {
  return client.request(`/api/wellness/${date}`, { method: 'DELETE' });
}
