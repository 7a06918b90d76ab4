import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENS, expectFitsTheScreen, launchChromium, sentOnDashboard, signUpAndConnect } from '../../helpers/browser.js';
import { fitFile } from '../../helpers/fit-files.js';
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
  await signUpAndConnect(page, stack.appUrl, 'activities-in-a-browser@example.com');
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await sync?.close();
  await browser?.close();
  await stack?.close();
});

describe('the activities page in a real browser', () => {
  it('uploads a .fit file from its form, which the dashboard shows sent and the service holds', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Activities' }).click();
    const form = page.getByRole('form', { name: 'Upload a .fit file' });
    await form.getByLabel('Name').fill('Harbour ride');
    await form
      .locator('input[type=file]')
      .setInputFiles({ name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(7)) });
    await form.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('form', { name: 'Harbour ride' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/activities-uploaded.png`, fullPage: true });

    expect(await sentOnDashboard(page, stack.appUrl, 'activities', 'Harbour ride')).toContain('Sent');
    const athlete = Object.values((await stack.sandboxState()).athletes)[0]!;
    expect(Object.values(athlete.workouts).map((workout) => workout.payload.name)).toEqual(['Harbour ride']);
  });

  it.each(SCREENS)('fits the page with the activity on a %s, every control on screen and large enough to tap', async (_screen, options) => {
    const storageState = await page.context().storageState();
    const onScreen = await (await browser.newContext({ ...options, timezoneId: ZONE, locale: 'en-GB', storageState })).newPage();
    await onScreen.goto(`${stack.appUrl}/activities`);
    await onScreen.getByRole('form', { name: 'Harbour ride' }).waitFor();
    await expectFitsTheScreen(onScreen, options.viewport!.width);
    await onScreen.context().close();
  });
});
