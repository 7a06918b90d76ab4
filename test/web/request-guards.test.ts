import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/account.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, type ApiError } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const FOREIGN = { origin: 'https://evil.example' };
const REFUSED = 'Requests from another site are not accepted. Go back to the page and send it from there.';

describe('a request from another origin', () => {
  it('is refused with an error page when it is a page’s form', async () => {
    const response = await stack.browser().postForm('/meals', { name: 'Oats' }, { ...FOREIGN, accept: 'text/html,*/*;q=0.8' });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain(REFUSED);
  });

  it('is refused with JSON under /api/, and for a client that asks for JSON at a page’s address', async () => {
    const api = await stack.browser().postJson('/api/meals', {}, FOREIGN);
    const script = await stack.browser().postForm('/meals', {}, { ...FOREIGN, accept: 'application/json' });
    for (const response of [api, script]) {
      expect(response.status).toBe(403);
      expect(await bodyOf<ApiError>(response)).toEqual({ error: 'forbidden', message: REFUSED });
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

  it('is served without an Origin header, as scripts and mobile clients send it', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await sendJson(client, 'PATCH', '/api/account', { connectionMail: false })).status).toBe(200);
  });
});
