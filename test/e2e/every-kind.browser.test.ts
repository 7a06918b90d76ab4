import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../src/dates/date-style.js';
import { KINDS } from '../../src/kinds.js';
import { launchChromium } from '../helpers/browser.js';
import { fitFile } from '../helpers/fit-files.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

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

/** The dashboard's sync line of one kind's entry, once the worker has sent it (the page is reloaded until then). */
async function sentOnDashboard(kind: string, label: string): Promise<string> {
  return eventually(`${kind} "${label}" to show as sent`, async () => {
    await page.goto(`${stack.appUrl}/`);
    const entry = page.locator(`[data-sync-kind="${kind}"] li[data-sync-state="synced"]`, { hasText: label });
    return (await entry.count()) === 1 ? ((await entry.textContent()) ?? '') : undefined;
  });
}

describe('every kind in a real browser', () => {
  it('connects, logs a wellness day, uploads a .fit file, and sees both sent on the dashboard', async () => {
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
    await screenshot('every-kind-2-wellness');

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Activities' }).click();
    const form = page.getByRole('form', { name: 'Upload a .fit file' });
    await form.getByLabel('Name').fill('Harbour ride');
    await form
      .locator('input[type=file]')
      .setInputFiles({ name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(7)) });
    await form.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('form', { name: 'Harbour ride' }).waitFor();
    await screenshot('every-kind-3-activities');

    expect(await sentOnDashboard('wellness', day)).toContain('Sent');
    expect(await sentOnDashboard('activities', 'Harbour ride')).toContain('Sent');
    await screenshot('every-kind-4-dashboard-synced');

    const athlete = Object.values((await stack.sandboxState()).athletes)[0]!;
    expect(athlete.wellness?.[today]?.payload).toMatchObject({ date: today, restingHr: 48, hrv: 71.5 });
    expect(Object.values(athlete.workouts).map((workout) => workout.payload.name)).toEqual(['Harbour ride']);

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Workouts' }).click();
    await page.getByText('Harbour ride').waitFor();
    await screenshot('every-kind-5-workouts');
  });
});
