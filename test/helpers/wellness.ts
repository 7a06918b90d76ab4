import { expect } from 'vitest';
import type { WellnessDayView, WellnessRecordView } from '../../src/wellness/wellness.js';
import { bodyOf, type CookieClient } from './http-client.js';

/**
 * A fixed "now" for the app's clock in wellness tests, so the user's today and tomorrow are known:
 * 2026-11-24T02:00 in Pacific/Kiritimati (+14:00), 2026-11-23T01:00 in Pacific/Pago_Pago (-11:00).
 */
export const NOW = new Date('2026-11-23T12:00:00Z');

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
