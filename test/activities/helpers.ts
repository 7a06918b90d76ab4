import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { ActivityView } from '../../src/activities/activities.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { bodyOf, type CookieClient } from '../helpers/http-client.js';
import type { Stack } from '../helpers/stack.js';

export interface UploadOptions {
  name?: string;
  /** Sent as the metadata part as it is: a JSON string, or anything else to see it refused. */
  metadata?: string;
  fileName?: string;
}

/** POST /api/activities as a partner's app would: multipart with FormData, the file as a Blob. */
export function postActivity(
  client: CookieClient,
  bytes: Uint8Array,
  { name, metadata, fileName = 'ride.fit' }: UploadOptions = {},
): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  if (name !== undefined) form.append('name', name);
  if (metadata !== undefined) form.append('metadata', metadata);
  return client.request('/api/activities', { method: 'POST', body: form });
}

/**
 * POST /api/activities as postActivity sends it, from `localAddress` (127.0.0.2, …), so that the
 * app sees another client address. Answers the status, the JSON answer and how long it took.
 */
export async function postActivityFrom(
  client: CookieClient,
  bytes: Uint8Array,
  localAddress: string,
): Promise<{ status: number; json: { message?: string }; ms: number }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'ride.fit');
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const url = new URL('/api/activities', client.origin);
  const started = performance.now();
  const req = request(url, {
    method: 'POST',
    localAddress,
    headers: {
      'content-type': encoded.headers.get('content-type')!,
      'content-length': String(body.length),
      cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}`,
    },
  });
  req.end(body);
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')), ms: performance.now() - started };
}

/** Uploads and expects `status` (201 for a new file, 200 for one already here); returns the activity. */
export async function uploadActivity(
  client: CookieClient,
  bytes: Uint8Array,
  options: UploadOptions = {},
  status = 201,
): Promise<ActivityView> {
  const response = await postActivity(client, bytes, options);
  expect(response.status).toBe(status);
  return bodyOf<ActivityView>(response);
}

export async function listActivities(client: CookieClient): Promise<ActivityView[]> {
  return (await bodyOf<{ activities: ActivityView[] }>(await client.get('/api/activities'))).activities;
}

export async function renameActivity(client: CookieClient, id: number, changes: Record<string, unknown>): Promise<Response> {
  return client.request(`/api/activities/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
}

/** What the user has of activities anywhere in the app: rows, stored bytes, outbox entries, and those waiting in the fresh lane. */
export async function activityTraces(stack: Stack, userId: number) {
  const rows = await stack.db.selectFrom('activities').select('id').where('user_id', '=', userId).execute();
  const files = await stack.db.selectFrom('activity_files').select('key').where('key', 'like', `${userId}/%`).execute();
  const outbox = await stack.db
    .selectFrom('outbox')
    .select('fresh_at')
    .where('user_id', '=', userId)
    .where('kind', '=', 'activities')
    .execute();
  const fresh = outbox.filter((entry) => entry.fresh_at !== null);
  return { rows: rows.length, files: files.length, outbox: outbox.length, fresh: fresh.length };
}
