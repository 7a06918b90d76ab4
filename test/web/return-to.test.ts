import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { sameSitePath } from '../../src/web/return-to.js';
import { signUpNewUser } from '../helpers/flows.js';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { seedProperties } from '../helpers/property-seed.js';
import { startStack, type Stack } from '../helpers/stack.js';

seedProperties();

describe('a page to return to after signing in', () => {
  it.each(['/wellness', '/meals?date=2026-11-20', '/activities#activity-3', '/'])('is %s, a path of this site', (path) => {
    expect(sameSitePath(path)).toBe(path);
  });

  it.each([
    '//evil.example/wellness',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'wellness',
    '/\t/evil.example',
    '/.//evil.example',
    '/..//evil.example',
    '/%2e%2e//evil.example',
    '/./\\evil.example',
    '/%2F%2Fevil.example',
    '/%2f/evil.example',
    '/%5Cevil.example',
    '/%09/evil.example',
    '/wellness%',
    '',
    ['/wellness'],
    undefined,
  ])('is never %j, which could leave the site or is no path', (value) => {
    expect(sameSitePath(value)).toBeUndefined();
  });

  /** Pieces of what an open redirect is made of, and of ordinary paths, in any order. */
  const pathPieces = fc.constantFrom(
    ...['/', '\\', '.', '..', '%2e', '%2F', '%2f', '%5C', '%5c', '%', '%25', '%E0%A4', '\t', '\n', '\u0000', ' ', '\u3000'],
    ...['?', '#', '@', ':', 'https:', 'javascript:', 'evil.example', 'wellness', 'date=2026-11-20'],
  );
  const candidates = fc.oneof(
    fc.array(pathPieces, { maxLength: 8 }).map((pieces) => pieces.join('')),
    fc.array(pathPieces, { maxLength: 8 }).map((pieces) => `/${pieces.join('')}`),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );

  it('is, whatever is given, a path that every page of this site resolves on this site, with its escapes undone too, and given back as it is', () => {
    const site = 'https://sync.example';
    fc.assert(
      fc.property(candidates, (value) => {
        const path = sameSitePath(value);
        if (path === undefined) return;
        expect(path).toMatch(/^\/(?![/\\])/);
        for (const page of [`${site}/`, `${site}/meals/12/edit?x=1`]) expect(new URL(path, page).origin).toBe(site);
        expect(decodeURIComponent(new URL(path, site).pathname)).toMatch(/^\/(?![/\\])[^\p{Cc}]*$/u);
        expect(sameSitePath(path)).toBe(path);
      }),
      { numRuns: 2000, examples: [['/.//evil.example'], ['/%2F%2Fevil.example'], ['/./\\evil.example']] },
    );
  });
});

describe('signing in from a page that needs it', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  const password = 'a long password';

  async function signedOutPerson(): Promise<{ client: CookieClient; email: string }> {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const signOut = await client.postForm('/logout', { _csrf: hiddenField(await (await client.get('/')).text(), '_csrf') });
    expect(signOut.status).toBe(303);
    return { client, email };
  }

  it('leads back to the page asked for, with its query', async () => {
    const { client, email } = await signedOutPerson();
    const page = `${KINDS[0]!.page.path}?date=2026-11-01`;
    const asked = await client.get(page);
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe(`/login?next=${encodeURIComponent(page)}`);

    const loginPage = await (await client.get(asked.headers.get('location')!)).text();
    expect(hiddenField(loginPage, 'next')).toBe(page);
    const signIn = await client.postForm('/login', {
      email,
      password,
      next: hiddenField(loginPage, 'next'),
      _csrf: hiddenField(loginPage, '_csrf'),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe(page);
  });

  it('sends to sign in without naming the dashboard, which is where signing in leads anyway', async () => {
    const { client } = await signedOutPerson();
    expect((await client.get('/')).headers.get('location')).toBe('/login');
  });

  it.each(['//evil.example/', 'https://evil.example/', '/\\evil.example', '/.//evil.example'])(
    'leads to the dashboard, not to %s',
    async (next) => {
      const { client, email } = await signedOutPerson();
      const loginPage = await (await client.get(`/login?next=${encodeURIComponent(next)}`)).text();
      expect(loginPage).not.toContain('name="next"');
      const signIn = await client.postForm('/login', { email, password, next, _csrf: hiddenField(loginPage, '_csrf') });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('location')).toBe('/');
    },
  );
});
