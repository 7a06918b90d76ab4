import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
