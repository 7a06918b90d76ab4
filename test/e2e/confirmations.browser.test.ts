import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { flashed, useSignedUpWithoutJavaScript } from '../helpers/browser.js';
import { fitFile } from '../helpers/fit-files.js';

const DATE = '2026-07-01';
/** The day as the pages write it for en-GB. */
const DAY = 'Wed, 1 Jul 2026';

const person = useSignedUpWithoutJavaScript('confirm@example.com');

describe('confirmations and confirm steps, without JavaScript', () => {
  it('says what an upload did, also for the same file again, and asks before deleting an activity', async () => {
    const { page, stack } = person;
    const upload = async () => {
      await page.goto(`${stack.appUrl}/activities`);
      const form = page.getByRole('form', { name: 'Upload a .fit file' });
      await form.getByLabel('Name').fill('Harbour ride');
      await form
        .locator('input[type=file]')
        .setInputFiles({ name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(1)) });
      await form.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(`${stack.appUrl}/activities`);
    };
    await upload();
    expect(await flashed(page)).toBe('Uploaded Harbour ride.');
    await upload();
    expect(await flashed(page)).toBe('This file was already uploaded: it is kept once, as Harbour ride.');

    await page.getByRole('form', { name: 'Harbour ride' }).getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete Harbour ride?');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${stack.appUrl}/activities`);
    expect(await flashed(page)).toBe('Deleted Harbour ride here.');
    expect(await page.getByText('No activities yet.').count()).toBe(1);
  });

  it('asks before Disconnect, and Cancel keeps the connection', async () => {
    const { page, stack } = person;
    await page.goto(stack.appUrl);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Disconnect from the Athlete Data Service?');
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await page.getByTestId('connection-status').textContent()).toBe('Connected');

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByTestId('flash').filter({ hasText: 'Disconnected.' }).waitFor();
    expect(await page.getByTestId('connection-status').textContent()).toBe('Not connected');
    await page.reload();
    expect(await page.getByTestId('flash').count()).toBe(0);
  });

  it('tells every problem of a wellness day at once, in plain words, and Back shows the page, not a form sent again', async () => {
    const { page, stack } = person;
    await page.goto(`${stack.appUrl}/wellness?date=${DATE}`);
    const row = page.locator(`tr[data-date="${DATE}"]`);
    await row.getByLabel(`HRV (ms) on ${DAY}`).fill('-3');
    await row.getByLabel(`Resting HR (bpm) on ${DAY}`).fill('48.5');
    await row.getByLabel(`Sleep hours on ${DAY}`).fill('75');
    await row.getByLabel(`Weight (kg) on ${DAY}`).fill('900');
    await row.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('alert').textContent()).toBe(
      `${DAY} was not saved: HRV (ms) must be a number of milliseconds from 1 to 500. ` +
        'Resting HR (bpm) must be a whole number of beats per minute from 20 to 250. ' +
        'Sleep hours must be a whole number of hours from 0 to 24. Weight (kg) must be a number of kilograms from 20 to 400.',
    );
    expect(await row.locator('input[aria-invalid="true"]').count()).toBe(4);
    expect(await row.getByLabel(`Resting HR (bpm) on ${DAY}`).inputValue()).toBe('48.5');
    await page.reload();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.goBack();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Wellness');
  });

  it('says so on the sign-in page after signing out', async () => {
    const { page, stack } = person;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${stack.appUrl}/login`);
    expect(await flashed(page)).toBe('You are signed out.');
    await page.reload();
    expect(await page.getByTestId('flash').count()).toBe(0);
  });

  it('says on the sign-in page that signing out everywhere was done, and tells another browser why it was signed out', async () => {
    const { page, stack, browser } = person;
    const signIn = async (on: Page) => {
      await on.goto(`${stack.appUrl}/login`);
      await on.getByLabel('Email').fill('confirm@example.com');
      await on.getByLabel('Password').fill('a long password');
      await on.getByRole('button', { name: 'Sign in' }).click();
      await on.getByTestId('connection-status').waitFor();
    };
    const elsewhere = await (await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' })).newPage();
    await signIn(page);
    await signIn(elsewhere);
    await page.goto(`${stack.appUrl}/account`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${stack.appUrl}/login`);
    expect(await flashed(page)).toBe('You are signed out everywhere: on every browser and device where you were signed in.');

    await elsewhere.goto(`${stack.appUrl}/account`);
    expect(await elsewhere.getByRole('status').textContent()).toBe(
      'You were signed out because “Sign out everywhere” was chosen on another browser or device.',
    );
    await elsewhere.reload();
    expect(await elsewhere.getByRole('status').count()).toBe(0);
    await elsewhere.context().close();
  });
});
