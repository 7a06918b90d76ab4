import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signUpAndConnect } from '../helpers/browser.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;
let page: Page;
const email = 'account-page@example.com';
const NEW_PASSWORD = 'a brand new password';

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
  page = await (await browser.newContext({ timezoneId: 'Europe/Kyiv', acceptDownloads: true })).newPage();
  await signUpAndConnect(page, stack.appUrl, email);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the account page', () => {
  it("downloads the person's data as a file", async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL(`${stack.appUrl}/account`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download my data' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^athlete-sync-export-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(await readFile(await download.path(), 'utf8'));
    expect(exported).toMatchObject({ account: { email, timezone: 'Europe/Kyiv' }, connection: { status: 'connected' } });
  });

  it('changes the password, signing out every other browser and keeping this one', async () => {
    const elsewhere = await (await browser.newContext()).newPage();
    await elsewhere.goto(`${stack.appUrl}/login`);
    await elsewhere.getByLabel('Email').fill(email);
    await elsewhere.getByLabel('Password').fill('a long password');
    await elsewhere.getByRole('button', { name: 'Sign in' }).click();
    await elsewhere.waitForURL(`${stack.appUrl}/`);

    await page.getByLabel('Current password').fill('a long password');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();

    await elsewhere.goto(`${stack.appUrl}/account`);
    expect(elsewhere.url()).toBe(`${stack.appUrl}/login?next=%2Faccount`);
    await page.goto(`${stack.appUrl}/account`);
    expect(page.url()).toBe(`${stack.appUrl}/account`);
    await page.screenshot({ path: 'test-output/account-page.png', fullPage: true });
  });

  it('deletes the account after asking for the password, saying what stays at the service', async () => {
    await page.getByRole('link', { name: 'Delete my account…' }).click();
    await page.waitForURL(`${stack.appUrl}/account/delete`);
    const staysAtService = (await page.getByTestId('stays-at-service').textContent())!.replace(/\s+/g, ' ');
    expect(staysAtService).toContain("withdraw this app's access in its settings");
    await page.screenshot({ path: 'test-output/delete-account-page.png', fullPage: true });

    await page.getByLabel('Your password').fill('a long password');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('alert').filter({ hasText: 'Your account was not deleted: That is not your current password.' }).waitFor();

    await page.getByLabel('Your password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(`${stack.appUrl}/account-deleted`);
    await page.getByRole('heading', { name: 'Your account is deleted' }).waitFor();

    expect(await stack.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
    await page.goto(`${stack.appUrl}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong email or password.').waitFor();
  });
});
