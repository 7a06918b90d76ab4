import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncOverview } from '../../src/dashboard/sync-overview.js';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { launchChromium } from '../helpers/browser.js';
import { connectedUser } from '../helpers/flows.js';
import { bodyOf, type CookieClient } from '../helpers/http-client.js';
import { importDays, workload, writeDay } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

const SCREENSHOTS = 'test-output';
const ZONE = 'Pacific/Kiritimati';

let stack: Stack;
let browser: Browser;
let sync: RunningSync | undefined;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '100' } });
  sync = await startSync(stack);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await sync?.close();
  await browser?.close();
  await stack?.close();
});

async function signedInPage(client: CookieClient): Promise<Page> {
  const context = await browser.newContext({ timezoneId: ZONE });
  await context.addCookies([{ name: SESSION_COOKIE, value: client.cookie(SESSION_COOKIE)!, url: stack.appUrl }]);
  return context.newPage();
}

/** The headline of one entry of the overview, as its JSON says it. */
async function headlineOf(client: CookieClient, id: string): Promise<string | undefined> {
  const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
  return overview.kinds.flatMap((kind) => kind.entries).find((entry) => entry.id === id)?.headline;
}

describe('the dashboard’s sync overview in a real browser', () => {
  it('goes from "Waiting: the service is busy" to "Sent" by itself during an outage and recovery, without a reload', async () => {
    const { client } = await connectedUser(stack, { timezone: ZONE });
    const today = localToday(new Date(), ZONE);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'], faultTargets: ['data'] });
    await writeDay(client, today);
    await eventually('the outage to hold the day', async () =>
      (await headlineOf(client, `${workload.syncKind}-${today}`))?.startsWith('Waiting: the service is busy') ? true : undefined,
    );

    const page = await signedInPage(client);
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    await page.goto(`${stack.appUrl}/`);
    const entry = page.locator(`[data-sync-entry="${workload.syncKind}-${today}"]`);
    expect(await entry.locator('.sync-headline').textContent()).toMatch(/^Waiting: the service is busy, next try (in about \d+ s|soon)$/);
    expect(await page.getByTestId('sync-counts').textContent()).toBe('1 waiting to be sent.');
    expect(await page.getByTestId('sync-last-problem').textContent()).toContain('Waiting: the service is busy');
    expect(await entry.locator('details').textContent()).toContain('HTTP 503');
    await page.screenshot({ path: `${SCREENSHOTS}/sync-overview-outage.png`, fullPage: true });
    // Gone if the page were loaded again.
    await page.evaluate(() => Object.assign(globalThis, { loadedOnce: true }));

    // The app itself answers one poll with a failure (a restart, a busy database): the next tick tries again.
    let failedOnce = false;
    await page.route('**/api/sync/overview', (route) => {
      if (failedOnce) return route.continue();
      failedOnce = true;
      return route.fulfill({ status: 503, contentType: 'text/html', body: '<h1>Service Unavailable</h1>' });
    });
    await stack.changeSandbox({ faultRate: 0 });
    await entry.locator('.sync-headline', { hasText: 'Sent just now' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => 'loadedOnce' in globalThis)).toBe(true);
    expect(failedOnce).toBe(true);
    expect(await entry.getAttribute('data-sync-state')).toBe('synced');
    expect(await page.getByTestId('sync-counts').textContent()).toBe('Nothing waits to be sent.');
    expect(await page.getByTestId('sync-last-problem').isHidden()).toBe(true);
    expect(await page.locator('#sync-overview').getAttribute('data-pending')).toBe('false');
    expect(refusedByPolicy).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard.png`, fullPage: true });
  }, 60_000);

  // A history arrives through a bulk import, for a kind that has one.
  it.skipIf(workload.bulk === undefined)(
    'shows a history on its way, its count moving by itself, and drops the line once all is sent',
    async () => {
      const { client } = await connectedUser(stack, { timezone: ZONE });
      const today = localToday(new Date(), ZONE);
      // 80 days at the default 10 requests a second: about 8 s, seen across a few of the page's polls.
      await importDays(
        client,
        Array.from({ length: 80 }, (_, index) => ({ date: addDays(today, -1 - index), n: 0 })),
      );

      const page = await signedInPage(client);
      await page.goto(`${stack.appUrl}/`);
      const history = page.getByTestId('sync-history');
      const first = await history.textContent();
      expect(first).toMatch(/^History: \d+ of 80 days sent, (starting\.|about .+ left \(done around \d\d:\d\d\)\.)$/);
      const sentAt = (text: string | null) => Number(text?.match(/^History: (\d+)/)?.[1]);
      await eventually(
        'the count to move without a reload',
        async () => (sentAt(await history.textContent()) > sentAt(first) ? true : undefined),
        20_000,
      );
      expect(await history.textContent()).toMatch(/about .+ left \(done around \d\d:\d\d\)\.$/);
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-history.png`, fullPage: true });
      await history.waitFor({ state: 'hidden', timeout: 30_000 });
      expect(await page.getByTestId('sync-counts').textContent()).toBe('Nothing waits to be sent.');
    },
    60_000,
  );
});
