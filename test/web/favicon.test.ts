import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

describe('the favicon', () => {
  it('answers at /favicon.ico, where browsers ask for it, as an SVG image and without a session', async () => {
    const response = await stack.browser().get('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await response.text()).toMatch(/^<svg /);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('is linked from every page', async () => {
    const page = await (await stack.browser().get('/login')).text();
    expect(page).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
  });
});
