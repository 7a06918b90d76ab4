import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestedScopes } from '../../src/connections/capabilities.js';
import { KINDS } from '../../src/kinds.js';
import { launchChromium } from '../helpers/browser.js';
import { workload } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';

const SCREENSHOTS = 'test-output';
/** A kind whose scope the service withholds at consent: the first registered one whose scope the test kind does not need. */
const WITHHELD_KIND = KINDS.find((kind) => kind.scope !== workload.scope)!;
const WITHHELD_SCOPE = WITHHELD_KIND.scope;

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ sandbox: { withheldScopes: [WITHHELD_SCOPE] } });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function signUpAndOpenConsent(email: string): Promise<Page> {
  const context = await browser.newContext({ timezoneId: 'Pacific/Chatham' });
  const page = await context.newPage();
  await page.goto(`${stack.appUrl}/signup`);
  await expect.poll(() => page.getByLabel('Time zone').inputValue()).toBe('Pacific/Chatham');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByTestId('connection-status').waitFor();
  expect(await page.getByTestId('connection-status').textContent()).toBe('Not connected');
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.waitForURL(`${stack.sandboxUrl}/api/oauth/authorize?**`);
  return page;
}

describe('Connect in a real browser', () => {
  it('signs up, approves on the consent page and lands on the dashboard, connected', async () => {
    const page = await signUpAndOpenConsent('browser@example.com');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Allow');
    await approveAs(page, 'Ana');

    await page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();
    expect(await page.getByTestId('connection-status').textContent()).toBe('Connected');
    const granted = withRequestedScopes({}).scopes.filter((scope) => scope !== WITHHELD_SCOPE);
    expect((await page.getByTestId('granted-scopes').textContent())?.split(' ').sort()).toEqual([...granted].sort());
    expect(await page.locator(`[data-capability="${workload.name}"] .on`).count()).toBe(1);
    expect(await page.locator(`[data-capability="${WITHHELD_KIND.name}"] .off`).count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}/connected-dashboard.png`, fullPage: true });

    const state = await stack.sandboxState();
    expect(state.grants).toHaveLength(1);
    expect(state.grants[0]).toMatchObject({ athlete: 'Ana', status: 'active' });
  });

  it('shows a friendly page with a way to try again when the person denies', async () => {
    const page = await signUpAndOpenConsent('denier@example.com');
    await page.getByLabel('Sandbox athlete').fill('Ben');
    await page.getByRole('button', { name: 'Deny' }).click();

    await page.waitForURL(`${stack.appUrl}/oauth/callback?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You chose not to connect');
    expect(await page.getByTestId('connection-standing').textContent()).toBe('You are not connected.');
    expect(await page.getByRole('link', { name: 'Connect', exact: true }).getAttribute('href')).toBe('/connect');
    await page.getByRole('link', { name: 'Back to your dashboard' }).click();
    expect(await page.getByTestId('connection-status').textContent()).toBe('Not connected');
  });

  it('lands on a page of the app saying the person is still connected after Back to the consent page and Approve again', async () => {
    const page = await signUpAndOpenConsent('back-button@example.com');
    await approveAs(page, 'Cleo');
    await page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();

    await page.goBack();
    await page.waitForURL(`${stack.sandboxUrl}/api/oauth/authorize?**`);
    await approveAs(page, 'Cleo');

    await page.waitForURL(`${stack.appUrl}/oauth/callback?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This connection attempt is no longer valid');
    await expectStillConnected(page, 'back-after-connect.png');
    const state = await stack.sandboxState();
    expect(state.grants.filter((grant) => grant.athlete === 'Cleo' && grant.status === 'active')).toHaveLength(1);
  });

  it('lands on a page of the app saying the person is still connected after denying a Reconnect', async () => {
    const page = await signUpAndOpenConsent('reconnect-denier@example.com');
    await approveAs(page, 'Dora');
    await page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();

    await page.getByRole('link', { name: 'Reconnect' }).click();
    await page.waitForURL(`${stack.sandboxUrl}/api/oauth/authorize?**`);
    await page.getByRole('button', { name: 'Deny' }).click();

    await page.waitForURL(`${stack.appUrl}/oauth/callback?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You chose not to reconnect');
    expect(await page.getByRole('alert').textContent()).toBe('Nothing new was shared.');
    await expectStillConnected(page, 'reconnect-denied.png');
  });
});

async function approveAs(page: Page, athlete: string): Promise<void> {
  await page.getByLabel('Sandbox athlete').fill(athlete);
  await page.getByRole('button', { name: 'Approve' }).click();
}

/** The result page says the earlier approval holds, offers Reconnect, and the dashboard agrees. */
async function expectStillConnected(page: Page, screenshot: string): Promise<void> {
  expect(await page.getByTestId('connection-standing').textContent()).toBe('You are still connected with your earlier approval.');
  expect(await page.getByRole('link', { name: 'Reconnect' }).getAttribute('href')).toBe('/connect');
  await page.screenshot({ path: `${SCREENSHOTS}/${screenshot}`, fullPage: true });
  await page.getByRole('link', { name: 'Back to your dashboard' }).click();
  expect(await page.getByTestId('connection-status').textContent()).toBe('Connected');
}
