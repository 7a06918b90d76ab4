import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Signs a new person up on the app's page and connects them (the sandbox must auto-approve); the page ends on the dashboard. */
export async function signUpAndConnect(page: Page, appUrl: string, email: string): Promise<void> {
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.waitForURL(`${appUrl}/?notice=connected`);
}
