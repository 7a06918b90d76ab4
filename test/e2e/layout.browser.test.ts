import { DateTime } from 'luxon';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { RESET_PASSWORD_PATH, VERIFY_EMAIL_PATH } from '../../src/accounts/account-mails.js';
import { KINDS } from '../../src/kinds.js';
import { UNSUBSCRIBE_PATH } from '../../src/notices/unsubscribe-link.js';
import { SCREENS, SCREENSHOTS, appClientOf, expectFitsTheScreen, useSignedInPerson } from '../helpers/browser.js';
import { workload, writeDay } from '../helpers/kinds.js';

const ZONE = 'Europe/Madrid';
const EMAIL = 'a-rather-long-address.for-layout@example.com';

const SIGNED_IN_PAGES = [
  '/',
  ...KINDS.map((kind) => kind.page.path),
  '/account',
  '/account/delete',
  '/disconnect',
  // What a Connect that did not connect shows, and a page that is not there.
  '/oauth/callback?state=unknown&code=unknown',
  '/no-such-page',
];
const SIGNED_OUT_PAGES = [
  '/login',
  '/signup',
  '/password/forgot',
  '/account-deleted',
  // Where a mailed link that is no longer valid leads.
  `${RESET_PASSWORD_PATH}?link=unknown`,
  `${VERIFY_EMAIL_PATH}?link=unknown`,
  `${UNSUBSCRIBE_PATH}?link=unknown`,
];
const SCREENSHOT_PAGES: Record<string, string> = {
  '/': 'dashboard',
  ...Object.fromEntries(KINDS.map((kind) => [kind.page.path, kind.name])),
};
const TEST_KIND_PAGE = KINDS.find((kind) => kind.name === workload.name)!.page.path;

/** The person's day of today, written through the test kind (test/helpers/kinds.ts), so that its page is not empty. */
const person = useSignedInPerson(ZONE, EMAIL, async (page, stack) => {
  const today = DateTime.now().setZone(ZONE).toISODate()!;
  await writeDay(await appClientOf(page, stack.appUrl), today);
});

async function pageOn(options: BrowserContextOptions, signedInOrOut: 'signed in' | 'signed out' = 'signed in'): Promise<Page> {
  const storageState = signedInOrOut === 'signed in' ? person.signedIn : undefined;
  return (await person.browser.newContext({ ...options, timezoneId: ZONE, storageState })).newPage();
}

describe.each(SCREENS)('every page on a %s', (_screen, options) => {
  const width = options.viewport!.width;

  it.each([
    ...SIGNED_IN_PAGES.map((path) => [path, 'signed in'] as const),
    ...SIGNED_OUT_PAGES.map((path) => [path, 'signed out'] as const),
  ])(
    `fits %s (%s) in the screen's width, its disclosures open, every control on screen and large enough to tap`,
    async (path, signedInOrOut) => {
      const page = await pageOn(options, signedInOrOut);
      await page.goto(`${person.stack.appUrl}${path}`);
      const name = SCREENSHOT_PAGES[path];
      if (name) await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      await expectFitsTheScreen(page, width);
      await page.context().close();
    },
  );

  it('keeps the header compact: at most an eighth of the first screen', async () => {
    const page = await pageOn(options);
    await page.goto(person.stack.appUrl);
    const header = await page.locator('header').boundingBox();
    expect(header!.height).toBeLessThanOrEqual(options.viewport!.height / 8);
    await page.context().close();
  });
});

describe('the focus ring', () => {
  it('is a thick dark ring set off from a primary button, where the keyboard puts the focus', async () => {
    const page = await pageOn(SCREENS[1]![1], 'signed out');
    await page.goto(`${person.stack.appUrl}/login`);
    for (let stop = 0; stop < 12 && (await page.locator('button:focus').count()) === 0; stop++) await page.keyboard.press('Tab');
    const ring = await page.locator('button:focus-visible').evaluate((button) => {
      const style = button.ownerDocument.defaultView!.getComputedStyle(button);
      return { style: style.outlineStyle, width: style.outlineWidth, color: style.outlineColor, offset: style.outlineOffset };
    });
    expect(ring).toEqual({ style: 'solid', width: '3px', color: 'rgb(27, 27, 27)', offset: '2px' });
    await page.context().close();
  });
});

describe('the skip link', () => {
  it('is the first Tab stop and moves the focus to the page’s content', async () => {
    const page = await pageOn(SCREENS[1]![1]);
    await page.goto(`${person.stack.appUrl}${TEST_KIND_PAGE}`);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    expect(await page.getByRole('link', { name: 'Skip to content' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.locator(':focus').evaluate((element) => element.id)).toBe('content');
    await page.keyboard.press('Tab');
    expect(await page.locator('main :focus').count()).toBe(1);
    await page.context().close();
  });
});
