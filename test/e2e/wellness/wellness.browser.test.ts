import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../../src/dates/date-style.js';
import { SCREENS, expectFitsTheScreen, launchChromium, sentOnDashboard, signUpAndConnect } from '../../helpers/browser.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { startSync, type RunningSync } from '../../helpers/sync-worker.js';

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
  await signUpAndConnect(page, stack.appUrl, 'wellness-in-a-browser@example.com');
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await sync?.close();
  await browser?.close();
  await stack?.close();
});

describe('the wellness page in a real browser', () => {
  it('logs a day, which the dashboard shows sent and the service holds', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Wellness' }).click();
    const today = (await page.locator('tbody tr').nth(1).getAttribute('data-date'))!; // the first row is tomorrow
    const day = dateStyleFor('en-GB').day(today);
    await page.getByLabel(`Resting HR (bpm) on ${day}`).fill('48');
    await page.getByLabel(`HRV (ms) on ${day}`).fill('71.5');
    await page
      .getByRole('form', { name: `Wellness on ${day}` })
      .getByRole('button', { name: 'Save' })
      .click();
    await page.waitForURL(`${stack.appUrl}/wellness`);
    expect(await page.getByLabel(`Resting HR (bpm) on ${day}`).inputValue()).toBe('48');
    await page.screenshot({ path: `${SCREENSHOTS}/wellness-logged.png`, fullPage: true });

    expect(await sentOnDashboard(page, stack.appUrl, 'wellness', day)).toContain('Sent');
    const athlete = Object.values((await stack.sandboxState()).athletes)[0]!;
    expect(athlete.wellness?.[today]?.payload).toMatchObject({ date: today, restingHr: 48, hrv: 71.5 });
  });

  it.each(SCREENS)(
    'fits the page with the day logged on a %s, every control on screen and large enough to tap',
    async (_screen, options) => {
      const storageState = await page.context().storageState();
      const onScreen = await (await browser.newContext({ ...options, timezoneId: ZONE, locale: 'en-GB', storageState })).newPage();
      await onScreen.goto(`${stack.appUrl}/wellness`);
      await expectFitsTheScreen(onScreen, options.viewport!.width);
      await onScreen.context().close();
    },
  );
});
