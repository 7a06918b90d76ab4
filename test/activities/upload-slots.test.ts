import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitUploads } from '../../src/activities/upload-slots.js';
import { serveWithErrorHandler, type ServedApp } from '../helpers/bare-app.js';
import { eventually } from '../helpers/wait.js';

let served: ServedApp;
let baseUrl: string;
/** The uploads admitted and not yet answered, by their X-Upload name: each finishes when told. */
const inProgress = new Map<string, () => void>();

/** A bare app with two slots; the signed-in user is the X-User header's id. */
beforeAll(async () => {
  const app = express();
  app.use((req, res, next) => {
    res.locals.user = { id: Number(req.get('x-user')) };
    next();
  });
  app.post('/api/upload', admitUploads({ maxConcurrent: 2 }), (req, res) => {
    inProgress.set(req.get('x-upload')!, () => res.status(201).json({ ok: true }));
  });
  served = await serveWithErrorHandler(app);
  baseUrl = served.url;
});
afterAll(() => served.close());

function upload(user: number, name: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/api/upload`, {
    method: 'POST',
    headers: { 'x-user': String(user), 'x-upload': name, 'content-type': 'application/json' },
    body: '{}',
    signal,
  });
}

/** Starts an upload and resolves, with its answer to come, once the app has admitted it. */
async function admitted(user: number, name: string, signal?: AbortSignal): Promise<{ answer: Promise<Response> }> {
  const answer = upload(user, name, signal);
  answer.catch(() => {});
  await eventually(`upload ${name} admitted`, async () => (inProgress.has(name) ? true : undefined));
  return { answer };
}

async function finish(name: string, { answer }: { answer: Promise<Response> }): Promise<void> {
  inProgress.get(name)!();
  inProgress.delete(name);
  expect((await answer).status).toBe(201);
}

describe('admitting uploads', () => {
  it("refuses a person's second upload while their first is in progress: 429 with Retry-After, until it is done", async () => {
    const first = await admitted(1, 'a');
    const second = await upload(1, 'b');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(await second.json()).toMatchObject({ error: 'too_many_requests' });
    await finish('a', first);
    await finish('c', await admitted(1, 'c'));
  });

  it('refuses an upload while as many as allowed are in progress: 503 with Retry-After, until one is done', async () => {
    const first = await admitted(2, 'd');
    const second = await admitted(3, 'e');
    const third = await upload(4, 'f');
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await third.json()).toMatchObject({ error: 'busy', message: expect.stringContaining('try again in a moment') });
    await finish('d', first);
    await finish('g', await admitted(4, 'g'));
    await finish('e', second);
  });

  it('frees the slot of an upload whose client left', async () => {
    const leaving = new AbortController();
    await admitted(5, 'h', leaving.signal);
    leaving.abort();
    // A probe refused (429) means the slot is still taken; one admitted waits for an answer, and is given up.
    await eventually('the slot freed', async () => {
      const refused = await upload(5, 'probe', AbortSignal.timeout(500)).catch(() => undefined);
      return refused === undefined && inProgress.has('probe') ? true : undefined;
    });
  });
});
