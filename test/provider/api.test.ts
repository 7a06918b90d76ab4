import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import type { AccessTokens } from '../../src/connections/access-token.js';
import { createPrometheusMetrics } from '../../src/observability/metrics.js';
import { createServiceApi } from '../../src/provider/api.js';
import type { MultipartParts } from '../../src/provider/multipart-body.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { fileContentOf } from '../helpers/file-content.js';
import { fitFile } from '../helpers/fit-files.js';
import { useNock } from '../helpers/nock.js';

const BASE_URL = 'https://athlete.test';
const now = new Date('2026-11-21T12:00:00Z');
const record = { date: '2026-11-21', items: [], rawJson: {} };

/** Hands out token-1, and token-2 after a rejection, counting both. */
function fakeAccessTokens() {
  const calls = { accessTokenFor: 0, replaceRejected: 0 };
  const tokens: AccessTokens = {
    accessTokenFor: async () => (calls.accessTokenFor++, 'token-1'),
    replaceRejected: async () => (calls.replaceRejected++, 'token-2'),
    keepAlive: async () => {},
  };
  return { tokens, calls };
}

function api(tokens: AccessTokens) {
  return createServiceApi(
    { baseUrl: BASE_URL, timeoutS: 5, uploadMinBytesPerS: 256 * 1024 },
    { accessTokens: tokens, clock: () => now, metrics: createPrometheusMetrics() },
  );
}

async function failureOf(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

useNock();

describe('the data API client', () => {
  it('posts the record as JSON with the Bearer token; 2xx is success whatever the body', async () => {
    const { tokens } = fakeAccessTokens();
    const scope = nock(BASE_URL)
      .post('/api/nutrition', record)
      .matchHeader('authorization', 'Bearer token-1')
      .matchHeader('content-type', 'application/json')
      .reply(201, 'anything');
    await api(tokens).postJson(1, '/api/nutrition', record);
    expect(scope.isDone()).toBe(true);
  });

  it('posts a wellness record as JSON with the Bearer token, absent measurements absent', async () => {
    const { tokens } = fakeAccessTokens();
    const wellness = {
      date: '2026-11-21',
      hrv: 48.5,
      sleepSecs: 27_000,
      rawJson: { source: 'athlete-sync', hrv: 48.5, sleepSecs: 27_000 },
    };
    const scope = nock(BASE_URL)
      .post('/api/wellness', (body) => JSON.stringify(body) === JSON.stringify(wellness))
      .matchHeader('authorization', 'Bearer token-1')
      .matchHeader('content-type', 'application/json')
      .reply(200);
    await api(tokens).postJson(1, '/api/wellness', wellness);
    expect(scope.isDone()).toBe(true);
  });

  it('answers a 401 with one refresh and one retry', async () => {
    const { tokens, calls } = fakeAccessTokens();
    nock(BASE_URL).post('/api/nutrition').matchHeader('authorization', 'Bearer token-1').reply(401);
    nock(BASE_URL).post('/api/nutrition').matchHeader('authorization', 'Bearer token-2').reply(200);
    await api(tokens).postJson(1, '/api/nutrition', record);
    expect(calls).toEqual({ accessTokenFor: 1, replaceRejected: 1 });
  });

  it('never loops: a second 401 is a retryable failure after exactly two requests and one refresh', async () => {
    const { tokens, calls } = fakeAccessTokens();
    const scope = nock(BASE_URL).post('/api/nutrition').times(2).reply(401);
    const error = await failureOf(api(tokens).postJson(1, '/api/nutrition', record));
    expect(error.kind).toBe('retryable');
    expect(scope.isDone()).toBe(true);
    expect(calls).toEqual({ accessTokenFor: 1, replaceRejected: 1 });
  });

  it.each([
    ['seconds', '7', 7000],
    ['an HTTP date', new Date(now.getTime() + 30_000).toUTCString(), 30_000],
    ['zero', '0', 1],
    ['a date in the past', new Date(now.getTime() - 30_000).toUTCString(), 1],
    ['days', String(3 * 24 * 3600), 3600_000],
    ['nonsense', 'soon', 1000],
  ])('waits out a 429 whose Retry-After is %s', async (_what, header, expectedMs) => {
    nock(BASE_URL).post('/api/nutrition').reply(429, '', { 'retry-after': header });
    const error = await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record));
    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: expectedMs });
  });

  it.each([500, 502, 503, 504])('retries HTTP %i', async (status) => {
    nock(BASE_URL).post('/api/nutrition').reply(status, { error: 'temporarily_unavailable' });
    expect((await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record))).kind).toBe('retryable');
  });

  it('retries a reset connection', async () => {
    // An Error, as node:http gives one: nock 14 never fails a node:http request with a plain object.
    nock(BASE_URL)
      .post('/api/nutrition')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const error = await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record));
    expect(error.kind).toBe('retryable');
    expect(error.unanswered).toBe(true);
    expect(error.message).toContain('no answer');
    expect(error.message).toContain('socket hang up');
  });

  it.each([
    [
      400,
      { error: 'invalid_request', error_description: 'items.0.carbs: expected a number' },
      'HTTP 400: invalid_request: items.0.carbs: expected a number',
    ],
    [403, { error: 'access_denied', error_description: 'athlete suspended' }, 'HTTP 403: access_denied: athlete suspended'],
    [422, 'not json', 'HTTP 422: Unprocessable Entity'],
  ])('treats HTTP %i as permanent, keeping the service’s message', async (status, body, message) => {
    nock(BASE_URL).post('/api/nutrition').reply(status, body);
    const error = await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record));
    expect(error).toMatchObject({ kind: 'permanent', message });
  });

  it.each([
    ['in the body', { error: 'insufficient_scope', error_description: 'the access token lacks the scope nutrition:write' }, {}],
    [
      'in the Bearer challenge only',
      '',
      { 'www-authenticate': 'Bearer realm="athlete-data", error="insufficient_scope", scope="nutrition:write"' },
    ],
  ])('treats a 403 for a missing scope (%s) as needing a reconnect, naming the problem', async (_where, body, headers) => {
    nock(BASE_URL).post('/api/nutrition').reply(403, body, headers);
    const error = await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record));
    expect(error.kind).toBe('needs-reconnect');
    expect(error.message).toMatch(/^the grant lacks a scope this request needs \(HTTP 403: /);
  });

  it('does not take another error of the challenge for a missing scope', async () => {
    nock(BASE_URL).post('/api/nutrition').reply(403, '', { 'www-authenticate': 'Bearer error="insufficient_scopes_and_more"' });
    expect((await failureOf(api(fakeAccessTokens().tokens).postJson(1, '/api/nutrition', record))).kind).toBe('permanent');
  });
});

describe('the workouts listing', () => {
  it('gets /api/workouts with the Bearer token and returns the body as text, whatever it is', async () => {
    const scope = nock(BASE_URL)
      .get('/api/workouts')
      .matchHeader('authorization', 'Bearer token-1')
      .reply(200, '{"workouts": [ {"name": "Ride"} ]} and some trailing words');
    expect(await api(fakeAccessTokens().tokens).getText(1, '/api/workouts')).toBe(
      '{"workouts": [ {"name": "Ride"} ]} and some trailing words',
    );
    expect(scope.isDone()).toBe(true);
  });

  it('answers a 401 with one refresh and one retry', async () => {
    const { tokens, calls } = fakeAccessTokens();
    nock(BASE_URL).get('/api/workouts').matchHeader('authorization', 'Bearer token-1').reply(401);
    nock(BASE_URL).get('/api/workouts').matchHeader('authorization', 'Bearer token-2').reply(200, '[]');
    expect(await api(tokens).getText(1, '/api/workouts')).toBe('[]');
    expect(calls).toEqual({ accessTokenFor: 1, replaceRejected: 1 });
  });

  it('takes a timeout of its own, shorter than the client’s, and gives up within it', async () => {
    nock(BASE_URL).get('/api/workouts').reply(200, '[]');
    // A caller's time left is rarely a whole number of milliseconds.
    expect(await api(fakeAccessTokens().tokens).getText(1, '/api/workouts', { timeoutMs: 200.5 })).toBe('[]');
    // Answered after 3 s: within the client's 5 s, not within the listing's own 200 ms.
    nock(BASE_URL).get('/api/workouts').delay(3000).reply(200, '[]');
    const error = await failureOf(api(fakeAccessTokens().tokens).getText(1, '/api/workouts', { timeoutMs: 200 }));
    expect(error).toMatchObject({ kind: 'retryable', unanswered: true });
  });

  it('throws a classified failure for an error answer', async () => {
    nock(BASE_URL).get('/api/workouts').reply(503, { error: 'temporarily_unavailable' });
    expect((await failureOf(api(fakeAccessTokens().tokens).getText(1, '/api/workouts'))).kind).toBe('retryable');
  });
});

describe('the activity upload', () => {
  const file = fitFile(7);
  const upload: MultipartParts = [
    ['file', { fileName: 'ride.fit', content: fileContentOf(file) }],
    ['name', 'Morning ride'],
    ['metadata', JSON.stringify({ localId: '42' })],
  ];

  /** What nock received, read back as a form. nock hands a body that is not UTF-8 over as hex; a multipart body opens with "--". */
  async function receivedForm(body: string, contentType: string): Promise<FormData> {
    const bytes = body.startsWith('--') ? Buffer.from(body, 'utf8') : Buffer.from(body, 'hex');
    return new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  }

  /** Replies `status` and keeps each request's form, with the token it carried. */
  function recordUploads(statuses: number[]) {
    const received: Array<{ authorization: string; form: Promise<FormData> }> = [];
    for (const status of statuses) {
      nock(BASE_URL)
        .post('/api/workouts/upload-fit')
        .reply(function (_uri, body) {
          received.push({
            authorization: String(this.req.headers.authorization),
            form: receivedForm(body as string, String(this.req.headers['content-type'])),
          });
          return [status, ''];
        });
    }
    return received;
  }

  async function expectWholeUpload(form: FormData) {
    const sent = form.get('file');
    expect(sent).toBeInstanceOf(File);
    expect((sent as File).name).toBe('ride.fit');
    expect(Buffer.from(await (sent as File).arrayBuffer()).equals(Buffer.from(file))).toBe(true);
    expect(form.get('name')).toBe('Morning ride');
    expect(form.get('metadata')).toBe('{"localId":"42"}');
  }

  it('sends the file byte for byte, with name and metadata as a JSON string, in a multipart form', async () => {
    const received = recordUploads([201]);
    await api(fakeAccessTokens().tokens).postMultipart(1, '/api/workouts/upload-fit', upload);
    expect(received).toHaveLength(1);
    expect(received[0]!.authorization).toBe('Bearer token-1');
    await expectWholeUpload(await received[0]!.form);
  });

  it('sends the whole form again, once, after a 401 and a refresh', async () => {
    const { tokens, calls } = fakeAccessTokens();
    const received = recordUploads([401, 200]);
    await api(tokens).postMultipart(1, '/api/workouts/upload-fit', upload);
    expect(received.map((request) => request.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    for (const request of received) await expectWholeUpload(await request.form);
    expect(calls).toEqual({ accessTokenFor: 1, replaceRejected: 1 });
  });

  it('fails as retryable, having sent it once, when the service does not answer within its time, on a kept-alive connection too', async () => {
    const uploads: number[] = [];
    const server = createServer((req, res) => {
      if (req.method === 'GET') return void res.end('[]');
      // The file is taken whole, and no answer comes.
      let received = 0;
      req.on('data', (chunk: Buffer) => (received += chunk.length)).on('end', () => uploads.push(received));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    nock.enableNetConnect('127.0.0.1');
    try {
      const local = createServiceApi(
        { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutS: 2, uploadMinBytesPerS: 1024 ** 3 },
        { accessTokens: fakeAccessTokens().tokens, clock: () => now, metrics: createPrometheusMetrics() },
      );
      // Answered, so that the upload goes out on the connection this kept alive.
      expect(await local.getText(1, '/api/workouts')).toBe('[]');
      const error = await failureOf(local.postMultipart(1, '/api/workouts/upload-fit', upload));
      expect(error).toMatchObject({ kind: 'retryable', unanswered: true });
      expect(uploads).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      nock.disableNetConnect();
    }
  });

  it('treats a 400 as permanent, with the service’s message', async () => {
    nock(BASE_URL)
      .post('/api/workouts/upload-fit')
      .reply(400, { error: 'invalid_request', error_description: 'FIT file CRC does not match' });
    const error = await failureOf(api(fakeAccessTokens().tokens).postMultipart(1, '/api/workouts/upload-fit', upload));
    expect(error).toMatchObject({ kind: 'permanent', message: 'HTTP 400: invalid_request: FIT file CRC does not match' });
  });
});
