import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUploadReception } from '../../src/activities/upload-slots.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { postActivity } from '../helpers/activities.js';
import { serveWithErrorHandler, type ServedApp } from '../helpers/bare-app.js';
import { fitFile } from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { dribbleUpload, streamUpload, type Dribble, type StreamedUpload } from '../helpers/stream-upload.js';
import { eventually } from '../helpers/wait.js';

/**
 * Uploads held open by their clients, on the app over HTTP at its default settings: four uploads
 * (ACTIVITY_MAX_CONCURRENT_UPLOADS files' worth), two per address, one per person, and bodies of
 * at least 16 KiB/s after their first 10 s.
 */

let stack: Stack;
let dribbles: Dribble[] = [];

beforeAll(async () => {
  stack = await startStack();
});
afterEach(() => {
  for (const dribble of dribbles) dribble.stop();
  dribbles = [];
});
afterAll(async () => {
  await stack.close();
});

async function signedIn(): Promise<CookieClient> {
  const client = stack.browser();
  await signUpNewUser(client);
  return client;
}

function cookieOf(client: CookieClient): Record<string, string> {
  return { cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}` };
}

/** An upload of `client`'s sent from `localAddress` at twice the minimum rate, held open. */
function dribbleOf(client: CookieClient, localAddress: string): Dribble {
  const dribble = dribbleUpload(`${stack.appUrl}/api/activities`, { bytesPerS: 32 * 1024, headers: cookieOf(client), localAddress });
  dribbles.push(dribble);
  return dribble;
}

const PERSONS_SECOND = {
  status: 429,
  json: { error: 'too_many_requests', message: 'Your previous upload is still being received or checked: send this one once it is done.' },
};

/**
 * An upload of `client`'s held open from `localAddress`, once the app has admitted it: two are
 * sent, and the app, which takes one per person, answers the other.
 */
async function holdOpen(client: CookieClient, localAddress: string): Promise<Dribble> {
  const both = [dribbleOf(client, localAddress), dribbleOf(client, localAddress)];
  const refused = await Promise.race(both.map((dribble) => dribble.answer.then((answer) => ({ dribble, answer }))));
  expect(refused.answer).toEqual(PERSONS_SECOND);
  return both.find((dribble) => dribble !== refused.dribble)!;
}

describe('uploads held open by their clients', () => {
  it("from four accounts on four addresses, leave another person's upload answered 201", async () => {
    const holders = await Promise.all([1, 2, 3, 4].map(() => signedIn()));
    await Promise.all(holders.map((holder, index) => holdOpen(holder, `127.0.0.${index + 2}`)));

    expect((await postActivity(await signedIn(), fitFile(201))).status).toBe(201);
  });

  it("from four accounts on one address, two are received, the others refused 429 naming the network, and another person's upload answered 201", async () => {
    const [first, second, third, fourth] = await Promise.all([1, 2, 3, 4].map(() => signedIn()));
    await holdOpen(first!, '127.0.0.6');
    await holdOpen(second!, '127.0.0.6');
    for (const refused of [dribbleOf(third!, '127.0.0.6'), dribbleOf(fourth!, '127.0.0.6')]) {
      expect(await refused.answer).toEqual({
        status: 429,
        json: {
          error: 'too_many_requests',
          message: '2 uploads from your network are still being received or checked: send this one once one of them is done.',
        },
      });
    }

    expect((await postActivity(await signedIn(), fitFile(202))).status).toBe(201);
  });

  it("refuses a person's second upload while their first is in progress: 429 with Retry-After", async () => {
    const person = await signedIn();
    await holdOpen(person, '127.0.0.7');
    const second = await postActivity(person, fitFile(203));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('5');
  });

  it('frees what an upload held once its client left', async () => {
    const person = await signedIn();
    (await holdOpen(person, '127.0.0.8')).stop();
    await eventually('the upload given up', async () => ((await postActivity(person, fitFile(204))).status === 201 ? true : undefined));
  });

  it('cuts a body arriving more slowly than 16 KiB/s with 408 once its first 10 s are past', async () => {
    const person = await signedIn();
    const started = Date.now();
    const slow = dribbleUpload(`${stack.appUrl}/api/activities`, { bytesPerS: 2 * 1024, headers: cookieOf(person) });
    dribbles.push(slow);
    expect(await slow.answer).toEqual({
      status: 408,
      json: {
        error: 'request_timeout',
        message: 'The upload arrived more slowly than 16 KiB per second: send it again, on a faster connection if you can.',
      },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
  }, 30_000);
});

describe('what uploads in progress hold', () => {
  const MAX_BYTES = 1024 * 1024;
  let served: ServedApp;
  /** The uploads received, by their X-Upload name: each is answered when told. */
  const received = new Map<string, () => void>();

  /** A bare app whose uploads may hold one file's worth in all; the signed-in user is the X-User header's id. */
  beforeAll(async () => {
    const app = express();
    const uploads = createUploadReception({ maxBytes: MAX_BYTES, maxConcurrent: 1, perAddress: 10, timeoutMs: 20_000, minBytesPerS: 1024 });
    app.use((req, res, next) => {
      res.locals.user = { id: Number(req.get('x-user')) };
      next();
    });
    app.post('/api/upload', uploads.admit, uploads.receive, (req, res) => {
      received.set(req.get('x-upload')!, () => res.status(201).json({ ok: true }));
    });
    served = await serveWithErrorHandler(app);
  });
  afterAll(() => served.close());

  /** An upload of a 1 MiB file, received whole and held until told to answer; its answer to come. */
  async function heldWhole(user: string, name: string): Promise<{ answer: Promise<StreamedUpload> }> {
    const upload = streamUpload(`${served.url}/api/upload`, MAX_BYTES, { declare: true, headers: { 'x-user': user, 'x-upload': name } });
    await eventually(`upload ${name} received`, async () => (received.has(name) ? true : undefined));
    return { answer: upload };
  }

  it('refuses an upload whose Content-Length would take them past the bound: 503 with Retry-After, its body unread', async () => {
    const first = await heldWhole('1', 'a');
    // Declared longer than any body may be (which would be 413), so that the kernel's buffers cannot take it all unread.
    const declared = 64 * MAX_BYTES;
    const second = await streamUpload(`${served.url}/api/upload`, declared, {
      declare: true,
      headers: { 'x-user': '2', 'x-upload': 'b' },
    });
    expect(second).toMatchObject({ status: 503, retryAfter: '5', json: { error: 'busy' } });
    expect(second.sentWhenAnswered).toBeLessThan(declared / 4);
    received.get('a')!();
    expect((await first.answer).status).toBe(201);
  });

  it('cuts an upload whose body takes them past the bound as it arrives, with 503 and Retry-After', async () => {
    const first = await heldWhole('3', 'c');
    // Chunked: no length to refuse it by before its bytes come.
    const second = await streamUpload(`${served.url}/api/upload`, MAX_BYTES, {
      declare: false,
      headers: { 'x-user': '4', 'x-upload': 'd' },
    });
    expect(second).toMatchObject({ status: 503, retryAfter: '5', json: { error: 'busy' } });
    received.get('c')!();
    expect((await first.answer).status).toBe(201);
  });

  it("holds nothing more once an upload is answered: the next one of a file's worth is received", async () => {
    const next = await heldWhole('5', 'e');
    received.get('e')!();
    expect((await next.answer).status).toBe(201);
  });
});
