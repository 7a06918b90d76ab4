import { afterEach, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

describe('Cache-Control', () => {
  it('forbids storing any page of a signed-in person, and leaves the public assets cacheable', async () => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    for (const path of ['/', '/account', '/nowhere']) {
      expect((await client.get(path)).headers.get('cache-control'), path).toBe('no-store');
    }
    expect((await client.get('/assets/style.css')).headers.get('cache-control')).not.toContain('no-store');
  });

  it('forbids storing any answer of the JSON API, refusals included', async () => {
    stack = await startStack();
    const client = stack.browser();
    expect((await client.get('/api/me')).headers.get('cache-control')).toBe('no-store');
    await signUpNewUser(client);
    for (const path of ['/api/me', '/api/sync/status?from=2026-05-01&to=2026-05-01', '/api/nowhere']) {
      expect((await client.get(path)).headers.get('cache-control'), path).toBe('no-store');
    }
  });
});
