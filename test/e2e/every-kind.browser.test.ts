import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localToday } from '../../src/dates/local-today.js';
import { KINDS } from '../../src/kinds.js';
import { appClientOf, launchChromium } from '../helpers/browser.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

/**
 * The registered kinds in a real browser, whichever they are; what each kind's page does there is
 * tested in its own folder (test/e2e/<kind>/).
 */

const SCREENSHOTS = 'test-output';
const ZONE = 'Pacific/Auckland';

let stack: Stack;
let browser: Browser;
let sync: RunningSync | undefined;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '200' } });
  sync = await startSync(stack);
  browser = await launchChromium();
  page = await (await browser.newContext({ timezoneId: ZONE, locale: 'en-GB' })).newPage();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await sync?.close();
  await browser?.close();
  await stack?.close();
});

const screenshot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });

describe('every kind in a real browser', () => {
  it('connects, opens each kind’s page from the navigation, and sees a day of the test kind sent on the dashboard', async () => {
    await page.goto(`${stack.appUrl}/signup`);
    await expect.poll(() => page.getByLabel('Time zone').inputValue()).toBe(ZONE);
    await page.getByLabel('Email').fill('every-kind@example.com');
    await page.getByLabel('Password').fill('a long password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('link', { name: 'Connect' }).click();
    await page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();
    for (const path of KINDS.map((kind) => kind.page.path)) {
      expect(await page.locator(`ul.capabilities a[href="${path}"]`).count()).toBe(1);
    }
    await screenshot('every-kind-1-connected');

    for (const { page: kindPage } of KINDS) {
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: kindPage.navLabel }).click();
      await page.waitForURL((url) => url.pathname === kindPage.path);
    }

    const today = localToday(new Date(), ZONE);
    await writeDay(await appClientOf(page, stack.appUrl), today);
    const sentEntry = page.locator(`li[data-sync-entry="${workload.syncKind}-${today}"][data-sync-state="synced"]`);
    await eventually(`${workload.syncKind} of ${today} to show as sent`, async () => {
      await page.goto(`${stack.appUrl}/`);
      return (await sentEntry.count()) === 1 ? true : undefined;
    });
    expect(await sentEntry.textContent()).toContain('Sent');
    await screenshot('every-kind-2-dashboard-synced');
  });
});
