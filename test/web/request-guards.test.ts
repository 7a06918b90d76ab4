import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/account.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, type ApiError } from '../helpers/http-client.js';
import { NOT_UTF8, utf16 } from '../helpers/json-charsets.js';
import { workload } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const FOREIGN = { origin: 'https://evil.example' };
/** The refusal names the app's own address, to go back to. */
const refused = () => `Requests from another site are not accepted. Open ${stack.appUrl} and send it from there.`;

describe('a request from another origin', () => {
  it('is refused with an error page when it is a page’s form', async () => {
    const response = await stack
      .browser()
      .postForm('/account/mail', { connection_mail: 'on' }, { ...FOREIGN, accept: 'text/html,*/*;q=0.8' });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain(refused());
  });

  it('is refused with JSON under /api/, and for a client that asks for JSON at a page’s address', async () => {
    const api = await stack.browser().postJson('/api/login', {}, FOREIGN);
    const script = await stack.browser().postForm('/account/mail', {}, { ...FOREIGN, accept: 'application/json' });
    for (const response of [api, script]) {
      expect(response.status).toBe(403);
      expect(await bodyOf<ApiError>(response)).toEqual({ error: 'forbidden', message: refused() });
    }
  });

  it('is answered when it only reads (GET), with no CORS header that would let the other site see the answer; one that changes something is refused', async () => {
    const client = stack.browser();
    await signUpNewUser(client);

    const read = await client.request('/api/me', { headers: FOREIGN });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();

    const change = await sendJson(client, 'PATCH', '/api/account', { connectionMail: false }, FOREIGN);
    expect(change.status).toBe(403);
    expect(await bodyOf<{ connectionMail: boolean }>(await client.get('/api/me'))).toMatchObject({ connectionMail: true });
  });

  it('from this machine under another spelling of the app’s address (localhost for 127.0.0.1) is refused, naming the address to open', async () => {
    const otherSpelling = stack.appUrl.replace('127.0.0.1', 'localhost');
    const response = await stack
      .browser()
      .postForm('/account/mail', { connection_mail: 'on' }, { origin: otherSpelling, accept: 'text/html,*/*;q=0.8' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(
      `This app&#39;s address is ${stack.appUrl}, not ${otherSpelling}. Open ${stack.appUrl} and send it from there.`,
    );
  });

  it('is served without an Origin header, as scripts and mobile clients send it', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await sendJson(client, 'PATCH', '/api/account', { connectionMail: false })).status).toBe(200);
  });
});

describe('a JSON body', () => {
  /** A sign-up whose password holds a character outside ASCII: signing in with it shows how the body was read. */
  let signUps = 0;
  const signUp = () => {
    const email = `charset-${++signUps}-${Date.now()}@example.com`;
    return { email, text: JSON.stringify({ email, password: 'a long password ☕', timezone: 'UTC' }) };
  };
  const signsIn = async (email: string) =>
    (await stack.browser().postJson('/api/login', { email, password: 'a long password ☕' })).status === 200;

  it.each([
    ['utf-16le', (text: string) => utf16(text, 'LE')],
    ['UTF-16BE', (text: string) => utf16(text, 'BE')],
    ['utf-16', (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), utf16(text, 'LE')])],
    ['utf-32', (text: string) => Buffer.from(text)],
    ['iso-8859-1', (text: string) => Buffer.from(text.replace('☕', 'é'), 'latin1')],
    ['us-ascii', (text: string) => Buffer.from(text.replace('☕', ''))],
    ['utf8', (text: string) => Buffer.from(text)],
    ['"utf-16le"', (text: string) => utf16(text, 'LE')],
  ])('declared in charset=%s is refused with 415 before it is parsed, storing nothing', async (charset, encoded) => {
    const { email, text } = signUp();
    const response = await stack.browser().request('/api/signup', {
      method: 'POST',
      headers: { 'content-type': `application/json; charset=${charset}` },
      body: encoded(text),
    });
    expect(response.status).toBe(415);
    expect(await bodyOf<ApiError>(response)).toEqual(NOT_UTF8);
    expect(await stack.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; Charset="Utf-8"',
    'APPLICATION/JSON; CHARSET=utf-8',
    'application/json; charset=utf-8; charset=utf-16le',
  ])('declared as %s is taken as UTF-8', async (contentType) => {
    const { email, text } = signUp();
    const response = await stack.browser().request('/api/signup', { method: 'POST', headers: { 'content-type': contentType }, body: text });
    expect(response.status).toBe(201);
    expect(await signsIn(email)).toBe(true);
  });

  it(`in UTF-16 is refused with 415 by the test kind's write (${workload.write.route}) too`, async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    const inUtf16 = {
      request: (path: string, init: RequestInit = {}) =>
        client.request(path, {
          ...init,
          headers: { 'content-type': 'application/json; charset=utf-16le' },
          // The workload's writes send their JSON as text.
          body: utf16(init.body as string, 'LE'),
        }),
    };
    const response = await workload.write.send(inUtf16, '2026-03-10', 0);
    expect(response.status).toBe(415);
    expect(await bodyOf<ApiError>(response)).toEqual(NOT_UTF8);
  });

  it.each([
    ['PATCH', '/api/account'],
    ['POST', '/api/account/password'],
    ['DELETE', '/api/account'],
    ['POST', '/api/signup'],
    ['POST', '/api/login'],
  ])('in UTF-16 is refused with 415 by %s %s too', async (method, path) => {
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await client.request(path, {
      method,
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: utf16('{"carbs":1}', 'LE'),
    });
    expect(response.status).toBe(415);
    expect(await bodyOf<ApiError>(response)).toEqual(NOT_UTF8);
  });
});
