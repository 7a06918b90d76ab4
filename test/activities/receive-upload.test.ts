import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/activities/activity-file-store.js';
import { receiveUpload } from '../../src/activities/receive-upload.js';
import { serveWithErrorHandler, type ServedApp } from '../helpers/bare-app.js';
import { fitFile } from '../helpers/fit-files.js';
import { BOUNDARY, dribbleUpload, streamUpload } from '../helpers/stream-upload.js';

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 2000;

let served: ServedApp;
let baseUrl: string;

/** A bare app: the upload route answers what reached it; refusals go through the app's error handler. */
beforeAll(async () => {
  const app = express();
  app.post('/api/upload', receiveUpload({ maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS, minBytesPerS: 1024 }), (req, res) => {
    const body: unknown = req.body;
    res.json({ sha256: sha256Hex(req.file?.buffer ?? new Uint8Array()), body });
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
  it('hands a valid upload to the next handler: the file byte for byte, and the text parts', async () => {
    const file = fitFile();
    const response = await post(form({ file, name: 'Morning ride', metadata: '{"localId":"42"}' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sha256: sha256Hex(file), body: { name: 'Morning ride', metadata: '{"localId":"42"}' } });
  });

  it('takes a file of exactly the limit', async () => {
    const file = new Uint8Array(MAX_BYTES).fill(7);
    const response = await post(form({ file }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sha256: sha256Hex(file) });
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

  it('answers 408 and closes the connection when the body stops arriving before its end', async () => {
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
  });
});

describe('receiveUpload, a body held to a minimum rate', () => {
  let paced: ServedApp;

  /** At least 16 KiB/s after its first second. */
  beforeAll(async () => {
    const app = express();
    const limits = { maxBytes: 1024 * 1024, timeoutMs: 20_000, minBytesPerS: 16 * 1024, graceMs: 1000 };
    app.post('/api/upload', receiveUpload(limits), (req, res) => {
      res.json({ bytes: req.file?.size });
    });
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
});
