import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import type { AppClient } from '../../src/kinds/workload.js';
import { startStack, type Stack } from './stack.js';
import { startSync, type RunningSync } from './sync-worker.js';
import { eventually } from './wait.js';

/** Where the browser tests leave their screenshots (git-ignored; see docs/testing.md). */
export const SCREENSHOTS = 'test-output/screenshots';

/** Debian's chromium (installed by .ci/run), headless, with nothing that reaches beyond this machine. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * Signs a new person up on the app's page and connects them (the sandbox must auto-approve); the
 * page ends on the dashboard at `appUrl`, wherever the sign-up page was opened (`openedAt`).
 */
export async function signUpAndConnect(page: Page, appUrl: string, email: string, openedAt = appUrl, timezone?: string): Promise<void> {
  await page.goto(`${openedAt}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long password');
  // Without JavaScript the page cannot fill in the browser's zone.
  if (timezone !== undefined) await page.getByLabel('Time zone').fill(timezone);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();
}

/**
 * A page of a browser without JavaScript (every confirmation and confirm step is plain HTML), its
 * new person signed up in Berlin's zone and connected.
 */
export async function signedUpWithoutJavaScript(browser: Browser, appUrl: string, email: string): Promise<Page> {
  const page = await (await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' })).newPage();
  await signUpAndConnect(page, appUrl, email, appUrl, 'Europe/Berlin');
  return page;
}

/** The app's stack, its sandbox approving every connection, and a browser that opens its pages. */
export interface BrowserStack {
  readonly stack: Stack;
  readonly browser: Browser;
}

/**
 * A BrowserStack started before the file's tests and closed after them, with what `ready` adds to it
 * once started (read it inside a test or hook); `syncing`, with a sync worker sending each change
 * 200 ms after it stops.
 */
function useBrowserStack<Added extends object>(
  ready: (started: BrowserStack) => Promise<Added>,
  { syncing = false } = {},
): Readonly<BrowserStack & Added> {
  const started: Partial<BrowserStack & { sync: RunningSync }> = {};
  beforeAll(async () => {
    const stack = await startStack({ sandbox: { autoApprove: 'Ana' }, ...(syncing && { env: { SYNC_QUIET_MS: '200' } }) });
    Object.assign(started, { stack, ...(syncing && { sync: await startSync(stack) }), browser: await launchChromium() });
    Object.assign(started, await ready(started as BrowserStack));
  });
  afterAll(async () => {
    await started.sync?.close();
    await started.browser?.close();
    await started.stack?.close();
  });
  return started as BrowserStack & Added;
}

/** The zone of a syncing browser's pages: far from UTC, so that a day placed by the server's clock would show. */
export const SYNCING_ZONE = 'Pacific/Auckland';

/**
 * The file's BrowserStack with a sync worker running and `page`, in SYNCING_ZONE and British
 * English, signed up and connected as `email` when one is given. Screenshots go to `test-output/`.
 */
export function useSyncingBrowser(email?: string): Readonly<BrowserStack & { page: Page }> {
  return useBrowserStack(
    async ({ stack, browser }) => {
      const page = await (await browser.newContext({ timezoneId: SYNCING_ZONE, locale: 'en-GB' })).newPage();
      if (email !== undefined) await signUpAndConnect(page, stack.appUrl, email);
      mkdirSync('test-output', { recursive: true });
      return { page };
    },
    { syncing: true },
  );
}

/**
 * The file's BrowserStack with `page`, a person's page in a browser without JavaScript, signed up
 * before the file's tests (see signedUpWithoutJavaScript).
 */
export function useSignedUpWithoutJavaScript(email: string): Readonly<BrowserStack & { page: Page }> {
  return useBrowserStack(async ({ stack, browser }) => ({ page: await signedUpWithoutJavaScript(browser, stack.appUrl, email) }));
}

/** The confirmation at the top of the page, announced politely. */
export function flashed(page: Page): Promise<string | null> {
  return page.getByRole('status').textContent();
}

/** A person signed up and connected, with the storageState that opens pages signed in as them. */
export interface SignedInPerson extends BrowserStack {
  readonly signedIn: BrowserContextOptions['storageState'];
}

/**
 * The file's BrowserStack with a person signed up and connected in `zone` before the file's tests,
 * their data written by `prepare` on a page of theirs. Screenshots can be taken into SCREENSHOTS.
 */
export function useSignedInPerson(zone: string, email: string, prepare: (page: Page, stack: Stack) => Promise<void>): SignedInPerson {
  return useBrowserStack(async ({ stack, browser }) => {
    const context = await browser.newContext({ timezoneId: zone });
    const page = await context.newPage();
    await signUpAndConnect(page, stack.appUrl, email);
    await prepare(page, stack);
    const signedIn = await context.storageState();
    await context.close();
    mkdirSync(SCREENSHOTS, { recursive: true });
    return { signedIn };
  });
}

/** A new page on `screen`, in `zone`, signed in as `person`, at the app's `path`. */
export async function signedInPageAt(person: SignedInPerson, screen: BrowserContextOptions, zone: string, path: string): Promise<Page> {
  const { browser, signedIn, stack } = person;
  const page = await (await browser.newContext({ ...screen, timezoneId: zone, locale: 'en-GB', storageState: signedIn })).newPage();
  await page.goto(`${stack.appUrl}${path}`);
  return page;
}

/** The person signed in on `page` as a client of the app's API, sending the page's cookies (as a kind's workload takes it). */
export async function appClientOf(page: Page, appUrl: string): Promise<AppClient> {
  const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
  return {
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', cookie);
      return fetch(`${appUrl}${path}`, { ...init, headers });
    },
  };
}

/** The dashboard's sync line of one of a kind's entries, named by `label`, once the worker has sent it (the page is reloaded until then). */
export function sentOnDashboard(page: Page, appUrl: string, kind: string, label: string): Promise<string> {
  return eventually(`${kind} "${label}" to show as sent`, async () => {
    await page.goto(`${appUrl}/`);
    const entry = page.locator(`[data-sync-kind="${kind}"] li[data-sync-state="synced"]`, { hasText: label });
    return (await entry.count()) === 1 ? ((await entry.textContent()) ?? '') : undefined;
  });
}

/** The screens a page is checked on: a phone 390 px wide, and a desktop 1280 px wide. */
export const SCREENS: Array<[string, BrowserContextOptions]> = [
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
  ['desktop', { viewport: { width: 1280, height: 800 } }],
];

/** WCAG 2.5.5's target size: the least width and height of what a person taps. */
const TAP_TARGET_PX = 44;

/**
 * What a person taps that is smaller than TAP_TARGET_PX either way, with its size: buttons, links
 * styled as buttons, disclosures, the header's links, and every link that stands on its own rather
 * than inside a sentence (WCAG 2.5.5 excepts those).
 */
export function smallTapTargets(page: Page): Promise<string[]> {
  return page.locator('button, a, summary, input[type="submit"]').evaluateAll(
    (elements, least) =>
      elements
        .filter((target) => target.getClientRects().length > 0 && !target.classList.contains('skip-link'))
        .filter(
          (target) =>
            target.tagName !== 'A' ||
            target.closest('header') !== null ||
            target.classList.contains('button') ||
            target.parentElement?.textContent?.trim() === target.textContent?.trim(),
        )
        .map((target) => ({ target, box: target.getBoundingClientRect() }))
        .filter(({ box }) => box.width < least - 0.5 || box.height < least - 0.5)
        .map(({ target, box }) => `${target.textContent?.trim() ?? ''}: ${Math.round(box.width)}×${Math.round(box.height)}`),
    TAP_TARGET_PX,
  );
}

/** Opens every disclosure (`<details>`) of the page, as a person taps each, so that what they hold is laid out too. */
export async function openEveryDisclosure(page: Page): Promise<void> {
  await page.locator('details').evaluateAll((disclosures) => {
    for (const disclosure of disclosures) disclosure.setAttribute('open', '');
  });
}

/** How wide the page is laid out: wider than the screen means sideways scrolling of the whole page. */
export function pageWidth(page: Page): Promise<number> {
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

/**
 * The page, its disclosures opened, fits a screen `width` wide: no sideways scrolling, every control
 * on screen and large enough to tap. Soft expectations: every problem of the page is reported.
 */
export async function expectFitsTheScreen(page: Page, width: number): Promise<void> {
  await openEveryDisclosure(page);
  expect.soft(await pageWidth(page)).toBeLessThanOrEqual(width);
  expect.soft(await controlsOffScreen(page, width)).toEqual([]);
  expect.soft(await smallTapTargets(page)).toEqual([]);
}

/**
 * A chart of views/day-chart.eta is drawn within the screen's width, summed up in its title (what
 * its aria-labelledby names), with its numbers in a table for screen readers, `rows` of them.
 */
export async function expectDayChart(chart: Locator, width: number, rows: number): Promise<void> {
  const svg = chart.locator('svg[role="img"]');
  expect(await svg.isVisible()).toBe(true);
  const box = (await svg.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  expect(await svg.getAttribute('aria-labelledby')).toBe(await svg.locator('title').getAttribute('id'));
  expect(await chart.locator('.visually-hidden table tbody tr').count()).toBe(rows);
}
