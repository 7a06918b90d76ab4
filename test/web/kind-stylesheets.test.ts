import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { signUpNewUser } from '../helpers/flows.js';
import { stylesheetLinks } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

/** Each registered kind that has a stylesheet, with where the pages link it. */
const STYLED_KINDS = KINDS.flatMap(({ name, stylesheet }) =>
  stylesheet ? [{ name, href: `/assets/kinds/${name}.css`, file: new URL(`../../views/${stylesheet}`, import.meta.url) }] : [],
);

describe("the kinds' stylesheets", () => {
  it('are linked from every page, signed in or not, after the shared one and in the order of the kinds', async () => {
    const client = stack.browser();
    const expected = ['/assets/style.css', ...STYLED_KINDS.map(({ href }) => href)];
    expect(stylesheetLinks(await (await client.get('/login')).text())).toEqual(expected);
    await signUpNewUser(client);
    expect(stylesheetLinks(await (await client.get('/')).text())).toEqual(expected);
  });

  it.each(STYLED_KINDS)(
    "serve $name's file under views/ as CSS, cacheable, with what a browser revalidates it by",
    async ({ href, file }) => {
      const client = stack.browser();
      const response = await client.get(href);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/css/);
      expect(response.headers.get('cache-control')).not.toContain('no-store');
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.text()).toBe(await readFile(file, 'utf8'));
      expect(response.headers.get('etag')).toBeTruthy();
      expect(response.headers.get('last-modified')).toBeTruthy();
    },
  );

  it('answers 404 for a stylesheet no registered kind has', async () => {
    expect((await stack.browser().get('/assets/kinds/nowhere.css')).status).toBe(404);
  });
});
