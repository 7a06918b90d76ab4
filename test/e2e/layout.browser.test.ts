import { mkdirSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signUpAndConnect } from '../helpers/browser.js';
import { fitFile } from '../helpers/fit-files.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** Where the browser tests leave their screenshots (git-ignored; see docs/testing.md). */
const SCREENSHOTS = 'test-output/screenshots';
const ZONE = 'Europe/Madrid';

const SCREENS: Array<[string, BrowserContextOptions]> = [
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
  ['desktop', { viewport: { width: 1280, height: 800 } }],
];
const SIGNED_IN_PAGES = ['/', '/meals', '/wellness', '/activities', '/workouts', '/account'];
const SCREENSHOT_PAGES: Record<string, string> = {
  '/': 'dashboard',
  '/meals': 'meals',
  '/wellness': 'wellness',
  '/activities': 'activities',
};

let stack: Stack;
let browser: Browser;
let signedIn: BrowserContextOptions['storageState'];

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
  const context = await browser.newContext({ timezoneId: ZONE });
  const page = await context.newPage();
  await signUpAndConnect(page, stack.appUrl, 'a-rather-long-address.for-layout@example.com');
  const today = DateTime.now().setZone(ZONE).toISODate();
  expect(
    (
      await page.request.post(`${stack.appUrl}/api/meals`, {
        data: { name: 'Porridge with berries', carbs: 60, logged_at: `${today}T07:30:00` },
      })
    ).status(),
  ).toBe(201);
  expect(
    (await page.request.put(`${stack.appUrl}/api/wellness/${today}`, { data: { hrv: 71.5, restingHr: 48, sleepSecs: 27_000 } })).ok(),
  ).toBe(true);
  const upload = await page.request.post(`${stack.appUrl}/api/activities`, {
    multipart: { name: 'Harbour ride', file: { name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(3)) } },
  });
  expect(upload.status()).toBe(201);
  signedIn = await context.storageState();
  await context.close();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function pageOn(options: BrowserContextOptions): Promise<Page> {
  return (await browser.newContext({ ...options, timezoneId: ZONE, storageState: signedIn })).newPage();
}

/** How wide the page is laid out: wider than the screen means sideways scrolling of the whole page. */
function pageWidth(page: Page): Promise<number> {
  return page.locator('html').evaluate((html) => html.scrollWidth);
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

describe.each(SCREENS)('every signed-in page on a %s', (_screen, options) => {
  const width = options.viewport!.width;

  it.each(SIGNED_IN_PAGES)(`fits %s in the screen's width, every control on screen`, async (path) => {
    const page = await pageOn(options);
    await page.goto(`${stack.appUrl}${path}`);
    expect.soft(await pageWidth(page)).toBeLessThanOrEqual(width);
    expect.soft(await controlsOffScreen(page, width)).toEqual([]);
    const name = SCREENSHOT_PAGES[path];
    if (name) await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
    await page.context().close();
  });
});

describe('the skip link', () => {
  it('is the first Tab stop and moves the focus to the page’s content', async () => {
    const page = await pageOn(SCREENS[1]![1]);
    await page.goto(`${stack.appUrl}/meals`);
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
