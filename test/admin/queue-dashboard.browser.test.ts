import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { launchChromium } from '../helpers/browser.js';
import { signedInToExistingAccount } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;
let admin: CookieClient;

beforeAll(async () => {
  stack = await startStack({ env: { ADMIN_EMAILS: 'ops@example.com' } });
  admin = await signedInToExistingAccount(stack, 'ops@example.com');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the queue dashboard in a browser', () => {
  it('loads for an admin under the app’s Content-Security-Policy, without a single violation', async () => {
    const context = await browser.newContext();
    await context.addCookies([{ name: SESSION_COOKIE, value: admin.cookie(SESSION_COOKIE)!, url: stack.appUrl }]);
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });

    const response = await page.goto(`${stack.appUrl}/admin/queues`);
    expect(response?.headers()['content-security-policy']).toBeDefined();
    await page.getByText('sync-fresh', { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(refused).toEqual([]);
  });

  it.each([1280, 390])('at %i px, leads a signed-out admin through sign-in back to it, and has a link back to the app', async (width) => {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    await page.goto(`${stack.appUrl}/admin/queues`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill('a long password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('sync-fresh', { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${stack.appUrl}/admin/queues`);
    await page.screenshot({ path: `test-output/screenshots/queue-dashboard-${width}.png` });

    // Bull Board's button of a person's icon, with no name, opens its menu of links.
    await page.locator('header button:has(svg.lucide-circle-user)').click();
    await page.getByRole('menuitem', { name: 'Back to athlete-sync' }).click();
    await page.waitForURL(`${stack.appUrl}/`);
    await page.close();
  });
});
