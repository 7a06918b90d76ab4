import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { flashed, useSignedUpWithoutJavaScript } from '../helpers/browser.js';

const person = useSignedUpWithoutJavaScript('confirm@example.com');

describe('confirmations and confirm steps, without JavaScript', () => {
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
