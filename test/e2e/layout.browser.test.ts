import { DateTime } from 'luxon';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { RESET_PASSWORD_PATH, VERIFY_EMAIL_PATH } from '../../src/accounts/account-mails.js';
import { KINDS } from '../../src/kinds.js';
import type { AppClient } from '../../src/kinds/workload.js';
import { UNSUBSCRIBE_PATH } from '../../src/notices/unsubscribe-link.js';
import { SCREENS, SCREENSHOTS, openEveryDisclosure, pageWidth, smallTapTargets, useSignedInPerson } from '../helpers/browser.js';
import { fitFile } from '../helpers/fit-files.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { uploadRide } from '../workouts/helpers.js';

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
/** A workout whose every column is filled, with a name as long as people give them. */
const LONG_WORKOUT_NAME = 'Early morning ride along the harbour wall and back through the old town';
const SCREENSHOT_PAGES: Record<string, string> = {
  '/': 'dashboard',
  ...Object.fromEntries(KINDS.map((kind) => [kind.page.path, kind.name])),
};
const TEST_KIND_PAGE = KINDS.find((kind) => kind.name === workload.name)!.page.path;

const person = useSignedInPerson(ZONE, EMAIL, async (page, stack) => {
  const today = DateTime.now().setZone(ZONE).toISODate()!;
  const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
  const client: AppClient = {
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', cookie);
      return fetch(`${stack.appUrl}${path}`, { ...init, headers });
    },
  };
  await writeDay(client, today);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', EMAIL).executeTakeFirstOrThrow();
  await uploadRide(stack, id, LONG_WORKOUT_NAME);
  expect(
    (await page.request.put(`${stack.appUrl}/api/wellness/${today}`, { data: { hrv: 71.5, restingHr: 48, sleepSecs: 27_000 } })).ok(),
  ).toBe(true);
  const upload = await page.request.post(`${stack.appUrl}/api/activities`, {
    multipart: { name: 'Harbour ride', file: { name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(3)) } },
  });
  expect(upload.status()).toBe(201);
});

async function pageOn(options: BrowserContextOptions, signedInOrOut: 'signed in' | 'signed out' = 'signed in'): Promise<Page> {
  const storageState = signedInOrOut === 'signed in' ? person.signedIn : undefined;
  return (await person.browser.newContext({ ...options, timezoneId: ZONE, storageState })).newPage();
}

/** The controls a person uses that lie (partly) beyond the screen's left or right edge, by their names. */
function controlsOffScreen(page: Page, width: number): Promise<string[]> {
  const controls = page.locator('a, button, input:not([type="hidden"]), select, textarea, summary').and(page.locator(':not(.skip-link)'));
  return controls.evaluateAll(
    (elements, screenWidth) =>
      elements
        .filter((control) => control.getClientRects().length > 0)
        .filter((control) => {
          const box = control.getBoundingClientRect();
          return box.left < 0 || box.right > screenWidth + 0.5;
        })
        .map((control) => String(control.getAttribute('aria-label') ?? control.getAttribute('name') ?? control.textContent?.trim())),
    width,
  );
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
      if (path === '/workouts') await page.getByRole('cell', { name: LONG_WORKOUT_NAME }).waitFor();
      const name = SCREENSHOT_PAGES[path];
      if (name) await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      await openEveryDisclosure(page);
      expect.soft(await pageWidth(page)).toBeLessThanOrEqual(width);
      expect.soft(await controlsOffScreen(page, width)).toEqual([]);
      expect.soft(await smallTapTargets(page)).toEqual([]);
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
