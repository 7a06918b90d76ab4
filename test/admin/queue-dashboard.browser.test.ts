import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { launchChromium } from '../helpers/browser.js';
import { signedInToExistingAccount } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ env: { ADMIN_EMAILS: 'ops@example.com' } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the queue dashboard in a browser', () => {
  it('loads for an admin under the app’s Content-Security-Policy, without a single violation', async () => {
    const admin = await signedInToExistingAccount(stack, 'ops@example.com');
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
});
