import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailCatcher, type MailCatcher } from '../../src/dev/mail-catcher.js';
import { PASSWORD } from '../helpers/account.js';
import { launchChromium, pageWidth, smallTapTargets } from '../helpers/browser.js';
import { linkMailedTo } from '../helpers/mail.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SCREENSHOTS = 'test-output/screenshots';
const SCREENS: Array<[string, BrowserContextOptions]> = [
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
  ['desktop', { viewport: { width: 1280, height: 800 } }],
];
const NEW_PASSWORD = 'a brand new password';

let catcher: MailCatcher;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  catcher = await startMailCatcher();
  stack = await startStack({ env: { SMTP_URL: catcher.url, MAIL_FROM: 'athlete-sync <no-reply@example.com>' } });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await catcher?.close();
});

describe.each(SCREENS)('the pages of the mailed links on a %s', (_screen, options) => {
  const width = options.viewport!.width;
  const email = `links-${width}-${Date.now()}@example.com`;
  let page: Page;

  /** The page fits the screen, what a person taps on it is large enough, and it is kept as a screenshot. */
  async function fitsAndShoot(name: string) {
    expect.soft(await pageWidth(page)).toBeLessThanOrEqual(width);
    expect.soft(await smallTapTargets(page), name).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
  }

  beforeAll(async () => {
    page = await (await browser.newContext(options)).newPage();
  });
  afterAll(async () => {
    await page.context().close();
  });

  it('sign up, the dashboard asks to confirm the address, the mailed link confirms it', async () => {
    await page.goto(`${stack.appUrl}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${stack.appUrl}/`);
    await page.getByTestId('email-unconfirmed').waitFor();
    expect(await page.getByRole('button', { name: 'Mail me the link again' }).isVisible()).toBe(true);
    await fitsAndShoot('email-unconfirmed');

    await page.goto(await linkMailedTo(catcher, email, '/email/verify'));
    await page.getByRole('heading', { name: 'Your address is confirmed' }).waitFor();
    await fitsAndShoot('email-confirmed');
    await page.getByRole('link', { name: 'Go to your dashboard' }).click();
    await page.waitForURL(`${stack.appUrl}/`);
    expect(await page.getByTestId('email-unconfirmed').count()).toBe(0);
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByTestId('email-status').waitFor();
    expect(await page.getByRole('button', { name: 'Change email address' }).isVisible()).toBe(true);
    await fitsAndShoot('account-email');

    const typed = `new-${email}`;
    await page.getByLabel('New email address').fill(typed);
    await page.getByLabel('Your password').fill('not my password');
    await page.getByRole('button', { name: 'Change email address' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Your address was not changed: That is not your current password.');
    expect(await page.getByLabel('New email address').inputValue()).toBe(typed);
    expect(await page.getByLabel('Your password').getAttribute('aria-invalid')).toBe('true');
    await fitsAndShoot('account-email-refused');
    await page.reload();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('forgot password, the mailed link, a new password: signed in', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByTestId('reset-sent').waitFor();
    await fitsAndShoot('password-forgot');

    await page.goto(await linkMailedTo(catcher, email, '/password/reset'));
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await fitsAndShoot('password-reset');
    await page.getByRole('button', { name: 'Set my new password' }).click();
    await page.waitForURL(`${stack.appUrl}/`);
    await page.getByText('Your new password is set, and you are signed in.').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out', exact: true }).isVisible()).toBe(true);

    await page.goBack();
    await page.reload();
    expect(await page.getByTestId('link-refused').textContent()).toContain('This link has already been used');
    await fitsAndShoot('password-link-used');
  });
});
