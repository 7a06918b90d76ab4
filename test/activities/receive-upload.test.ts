import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/activities/activity-file-store.js';
import { receiveUpload } from '../../src/activities/receive-upload.js';
import { withUploadedFile } from '../../src/activities/upload-folder.js';
import { serveWithErrorHandler, type ServedApp } from '../helpers/bare-app.js';
import { fitFile } from '../helpers/fit-files.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';
import { eventually } from '../helpers/wait.js';
import { BOUNDARY, dribbleUpload, streamUpload } from './stream-upload.js';

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 2000;

let served: ServedApp;
let baseUrl: string;
const folder = temporaryFolder('uploads-');

/** The files in the upload folder now. */
const filesInFolder = () => readdirSync(folder);

/** Waits until every upload's file is gone from the folder, as each upload's end removes it. */
const folderEmptied = () => eventually('the upload folder emptied', async () => (filesInFolder().length === 0 ? true : undefined));

/**
 * A bare app: the upload route answers what reached it (the file's SHA-256 as received and as
 * written, its mode, and the text parts); /api/refused answers without taking the file, as a
 * refused form token does; refusals go through the app's error handler.
 */
beforeAll(async () => {
  const app = express();
  const receive = receiveUpload({ maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS, minBytesPerS: 1024, folder });
  app.post('/api/upload', receive, (req, res) =>
    withUploadedFile(req, async ({ file }) => {
      const body: unknown = req.body;
      const written = await readFile(file.path);
      const mode = ((await stat(file.path)).mode & 0o777).toString(8);
      res.json({ sha256: file.sha256, written: sha256Hex(written), size: file.size, mode, body });
    }),
  );
  app.post('/api/refused', receive, (_req, res) => {
    res.status(403).json({ error: 'forbidden', message: 'Refused after receiving.' });
  });
  served = await serveWithErrorHandler(app);
  baseUrl = served.url;
});

afterAll(() => served.close());

function post(body: FormData | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/upload`, { method: 'POST', body, headers });
}

function form(parts: Record<string, string | Uint8Array | Uint8Array[]>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') data.append(name, value);
    else for (const file of Array.isArray(value) ? value : [value]) data.append(name, new Blob([file]), 'activity.fit');
  }
  return data;
}

const payloadTooLarge = { error: 'payload_too_large', message: 'The file is larger than the limit of 64 KiB.' };

describe('receiveUpload', () => {
  it('hands a valid upload to the next handler: the file byte for byte on disk, readable by this user only, and the text parts', async () => {
    const file = fitFile();
    const response = await post(form({ file, name: 'Morning ride', metadata: '{"localId":"42"}' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      sha256: sha256Hex(file),
      written: sha256Hex(file),
      size: file.length,
      mode: '600',
      body: { name: 'Morning ride', metadata: '{"localId":"42"}' },
    });
    await folderEmptied();
  });

  it('takes a file of exactly the limit', async () => {
    const file = new Uint8Array(MAX_BYTES).fill(7);
    const response = await post(form({ file }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sha256: sha256Hex(file), written: sha256Hex(file) });
  });

  it('removes the file once answered, however the upload ends: taken, refused after it arrived, over the limit, or left midway', async () => {
    expect((await post(form({ file: fitFile(1) }))).status).toBe(200);
    const refusedAfter = await fetch(`${baseUrl}/api/refused`, { method: 'POST', body: form({ file: fitFile(2) }) });
    expect(refusedAfter.status).toBe(403);
    expect((await streamUpload(`${baseUrl}/api/upload`, 4 * MAX_BYTES, { declare: false })).status).toBe(413);
    const leaving = request(`${baseUrl}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(MAX_BYTES) },
    });
    leaving.on('error', () => {});
    leaving.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="left.fit"\r\n\r\n` + 'x'.repeat(5000));
    await eventually('the file begun', async () => (filesInFolder().length > 0 ? true : undefined));
    leaving.destroy();
    await folderEmptied();
  });

  it('answers 413 for a file one byte over the limit, its Content-Length within what the parts may add', async () => {
    const response = await post(form({ file: new Uint8Array(MAX_BYTES + 1) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(payloadTooLarge);
  });

  it('answers 413 for a chunked body whose file runs past the limit', async () => {
    const upload = await streamUpload(`${baseUrl}/api/upload`, 4 * MAX_BYTES, { declare: false });
    expect(upload).toMatchObject({ status: 413, json: payloadTooLarge });
  });

  it('answers 413 to a body whose Content-Length is too large before the client has sent it', async () => {
    const declared = 64 * 1024 * 1024;
    const upload = await streamUpload(`${baseUrl}/api/upload`, declared, { declare: true });
    expect(upload).toMatchObject({ status: 413, json: payloadTooLarge });
    // The kernel's socket buffers take some megabytes whether or not the server reads them.
    expect(upload.sentWhenAnswered).toBeLessThan(declared / 4);
  });

  it.each<[string, () => Promise<Response>, RegExp]>([
    ['a file in another part', () => post(form({ upload: fitFile() })), /Send the file in the part "file", not "upload"/],
    ['two files', () => post(form({ file: [fitFile(1), fitFile(2)] })), /one file/],
    ['no file', () => post(form({ name: 'Ride' })), /has no file/],
    ['a JSON body', () => post('{"file":"x"}', { 'Content-Type': 'application/json' }), /multipart\/form-data/],
    ['too many text parts', () => post(form({ file: fitFile(), name: 'a', metadata: '{}', _csrf: 't', extra: 'x' })), /too many parts/],
    [
      'a text part over 16 KiB',
      () => post(form({ file: fitFile(), metadata: 'x'.repeat(16 * 1024 + 1) })),
      /"metadata" is longer than 16 KiB/,
    ],
    [
      'an unfinished multipart body',
      () =>
        post(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nRide`, {
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        }),
      /not a readable multipart form/,
    ],
  ])('answers 400 with what to change for %s', async (_case, send, message) => {
    const response = await send();
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'bad_request', message: expect.stringMatching(message) });
  });

  it('answers 408, closes the connection and removes what arrived when the body stops before its end', async () => {
    const stalled = request(`${baseUrl}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(MAX_BYTES) },
    });
    stalled.on('error', () => {});
    // The file part's opening and a few bytes, then nothing more, the connection held open.
    stalled.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.fit"\r\n\r\n` + 'x'.repeat(1000));
    const [response] = (await once(stalled, 'response')) as [IncomingMessage];
    expect(response.statusCode).toBe(408);
    expect(response.headers.connection).toBe('close');
    const body = await new Response(Readable.toWeb(response) as ReadableStream).json();
    expect(body).toEqual({
      error: 'request_timeout',
      message: `The upload did not arrive within ${TIMEOUT_MS / 1000} s: send it again, on a faster connection if you can.`,
    });
    stalled.destroy();
    await folderEmptied();
  });
});

describe('receiveUpload, a body held to a minimum rate', () => {
  let paced: ServedApp;

  /** At least 16 KiB in every second. */
  beforeAll(async () => {
    const app = express();
    const limits = { maxBytes: 1024 * 1024, timeoutMs: 20_000, minBytesPerS: 16 * 1024, windowMs: 1000, folder };
    app.post('/api/upload', receiveUpload(limits), (req, res) =>
      withUploadedFile(req, async ({ file }) => {
        res.json({ bytes: file.size });
      }),
    );
    paced = await serveWithErrorHandler(app);
  });
  afterAll(() => paced.close());

  it('cuts a body arriving more slowly, once its first second is past, with 408', async () => {
    const slow = dribbleUpload(`${paced.url}/api/upload`, { bytesPerS: 4 * 1024 });
    try {
      expect(await slow.answer).toEqual({
        status: 408,
        json: {
          error: 'request_timeout',
          message: 'The upload arrived more slowly than 16 KiB per second: send it again, on a faster connection if you can.',
        },
      });
    } finally {
      slow.stop();
    }
  });

  it('takes a body arriving at twice that rate, for as long as it takes', async () => {
    const steady = dribbleUpload(`${paced.url}/api/upload`, { bytesPerS: 32 * 1024, fileBytes: 80 * 1024 });
    expect(await steady.answer).toEqual({ status: 200, json: { bytes: 80 * 1024 } });
  });

  it('cuts a body that came fast and then stopped within about a second of its stop, whatever it sent before', async () => {
    const stalled = request(`${paced.url}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(1024 * 1024) },
    });
    stalled.on('error', () => {});
    // 512 KiB at once: 32 s at the minimum rate, which a rate counted from the start would have allowed.
    stalled.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="fast.fit"\r\n\r\n` + 'x'.repeat(512 * 1024));
    const started = Date.now();
    const [response] = (await once(stalled, 'response')) as [IncomingMessage];
    expect(response.statusCode).toBe(408);
    expect(Date.now() - started).toBeLessThan(5000);
    stalled.destroy();
  });
});
