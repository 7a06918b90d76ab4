import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUploadReception } from '../../src/activities/upload-slots.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { serveWithErrorHandler, type ServedApp } from '../helpers/bare-app.js';
import { fitFile, fitFileOfDeveloperFields, fitFileOfRecords, fitFileOfSize, fitFileWithEndlessLookups } from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';
import { postActivity, postActivityFrom } from './helpers.js';
import { holdUpload } from './held-upload.js';
import { dribbleUpload, streamUpload, type Dribble, type StreamedUpload } from './stream-upload.js';

/**
 * Uploads held open by their clients, and files built to hold the checks, on the app over HTTP at
 * its default settings: sixteen files of 25 MiB (ACTIVITY_MAX_CONCURRENT_UPLOADS files' worth)
 * in all, two uploads per address, one per person, bodies of at least 16 KiB/s in every 10 s.
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

describe('uploads sent fast and then held', () => {
  const MIB = 1024 * 1024;

  it("four of 25 MiB from two addresses are cut within about 10 s of stopping, and another person's 1 MB and 25 MiB uploads are answered 201 meanwhile", async () => {
    const holders = await Promise.all([1, 2, 3, 4].map(() => signedIn()));
    const file = new Uint8Array(25 * MIB);
    const text = 'p'.repeat(16_000);
    // All but the last 60 bytes of each file, at full speed, then nothing.
    const held = await Promise.all(
      holders.map((holder, index) =>
        holdUpload(`${stack.appUrl}/api/activities`, {
          cookie: `${SESSION_COOKIE}=${holder.cookie(SESSION_COOKIE)}`,
          fields: { name: text, metadata: text },
          file,
          heldAfter: file.length - 60,
          localAddress: `127.0.1.${1 + Math.floor(index / 2)}`,
        }),
      ),
    );
    const stopped = Date.now();

    const person = await signedIn();
    expect((await postActivityFrom(person, fitFileOfRecords(500_000, 1), '127.0.1.9')).status).toBe(201);
    expect((await postActivityFrom(person, fitFileOfSize(25 * MIB - 4096), '127.0.1.9')).status).toBe(201);
    const answers = await Promise.all(held.map((upload) => upload.answer()));
    expect(answers.map(({ status }) => status)).toEqual([408, 408, 408, 408]);
    // 10 s and the check's half-second step, with room for a busy machine; a rate counted from the start would allow 120 s.
    expect(Math.max(...answers.map(({ at }) => at)) - stopped).toBeLessThan(20_000);
  }, 120_000);
});

describe('files built to keep the checks decoding', () => {
  it("from six accounts leave another person's small and large uploads answered 201 within seconds, and are refused 400 in words", async () => {
    const built = [
      fitFileWithEndlessLookups(60 * 1024),
      fitFileWithEndlessLookups(1024 * 1024),
      fitFileOfDeveloperFields({
        described: [0],
        fields: Array.from({ length: 255 }, (_, field) => field),
        bytesPerField: 0,
        count: 60_000,
      }),
    ];
    const senders = await Promise.all([1, 2, 3, 4, 5, 6].map(() => signedIn()));
    const refused = senders.map((sender, index) => postActivityFrom(sender, built[index % built.length]!, `127.0.2.${1 + index}`));
    const [small, large] = await Promise.all([
      signedIn().then((person) => postActivityFrom(person, fitFile(205), '127.0.2.10')),
      signedIn().then((person) => postActivityFrom(person, fitFileOfRecords(200_000, 1), '127.0.2.11')),
    ]);
    expect([small.status, large.status]).toEqual([201, 201]);
    // Seconds, with room for a busy machine: a file that held a check for its whole minute took 60 s.
    expect(Math.max(small.ms, large.ms)).toBeLessThan(15_000);
    for (const answer of await Promise.all(refused)) {
      expect(answer).toMatchObject({
        status: 400,
        json: { message: expect.stringMatching(/^The file is too complex to check: it (describes|defines) /) },
      });
    }
  }, 120_000);
});

describe('what uploads in progress hold', () => {
  const MAX_BYTES = 1024 * 1024;
  let served: ServedApp;
  /** The uploads received, by their X-Upload name: each is answered when told. */
  const received = new Map<string, () => void>();

  const folder = temporaryFolder('uploads-');
  /** An upload's file that a process killed midway left in the folder, untouched for a day. */
  const leftOver = join(folder, 'athlete-sync-upload-left.fit.part');

  /** A bare app whose uploads may hold one file's worth in all; the signed-in user is the X-User header's id. */
  beforeAll(async () => {
    writeFileSync(leftOver, 'x');
    const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000);
    utimesSync(leftOver, dayAgo, dayAgo);
    const app = express();
    const uploads = createUploadReception({
      maxBytes: MAX_BYTES,
      maxConcurrent: 1,
      perAddress: 10,
      timeoutMs: 20_000,
      minBytesPerS: 1024,
      folder,
    });
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

  it('removed, at its start, the files of uploads a process killed midway left in its folder, and leaves none of its own', async () => {
    expect(existsSync(leftOver)).toBe(false);
    await eventually('every upload’s file removed', async () => (readdirSync(folder).length === 0 ? true : undefined));
  });
});
