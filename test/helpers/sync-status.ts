import { bodyOf, type CookieClient } from './http-client.js';

/** Where one entry of a daily kind stands, as GET /api/sync/status shows it. */
export interface DayStatus {
  kind: string;
  date: string;
  status: string;
  syncedAt?: string;
  error?: string;
}

/** The person's entries of every daily kind from `from` to `to`, as GET /api/sync/status lists them. */
export async function syncStatus(client: CookieClient, from: string, to = from): Promise<DayStatus[]> {
  return (await bodyOf<{ days: DayStatus[] }>(await client.get(`/api/sync/status?from=${from}&to=${to}`))).days;
}
