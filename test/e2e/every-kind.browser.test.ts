import { describe, expect, it } from 'vitest';
import { localToday } from '../../src/dates/local-today.js';
import { KINDS } from '../../src/kinds.js';
import { appClientOf, SYNCING_ZONE, useSyncingBrowser } from '../helpers/browser.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { eventually } from '../helpers/wait.js';

/**
 * The registered kinds in a real browser, whichever they are; what each kind's page does there is
 * tested in its own folder (test/e2e/<kind>/).
 */

const SCREENSHOTS = 'test-output';

const app = useSyncingBrowser();

const screenshot = (name: string) => app.page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });

describe('every kind in a real browser', () => {
  it('connects, opens each kind’s page from the navigation, and sees a day of the test kind sent on the dashboard', async () => {
    await app.page.goto(`${app.stack.appUrl}/signup`);
    await expect.poll(() => app.page.getByLabel('Time zone').inputValue()).toBe(SYNCING_ZONE);
    await app.page.getByLabel('Email').fill('every-kind@example.com');
    await app.page.getByLabel('Password').fill('a long password');
    await app.page.getByRole('button', { name: 'Sign up' }).click();
    await app.page.getByRole('link', { name: 'Connect' }).click();
    await app.page.getByTestId('flash').filter({ hasText: 'Connected.' }).waitFor();
    for (const path of KINDS.map((kind) => kind.page.path)) {
      expect(await app.page.locator(`ul.capabilities a[href="${path}"]`).count()).toBe(1);
    }
    await screenshot('every-kind-1-connected');

    for (const { page: kindPage } of KINDS) {
      await app.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: kindPage.navLabel }).click();
      await app.page.waitForURL((url) => url.pathname === kindPage.path);
    }

    const today = localToday(new Date(), SYNCING_ZONE);
    await writeDay(await appClientOf(app.page, app.stack.appUrl), today);
    const sentEntry = app.page.locator(`li[data-sync-entry="${workload.syncKind}-${today}"][data-sync-state="synced"]`);
    await eventually(`${workload.syncKind} of ${today} to show as sent`, async () => {
      await app.page.goto(`${app.stack.appUrl}/`);
      return (await sentEntry.count()) === 1 ? true : undefined;
    });
    expect(await sentEntry.textContent()).toContain('Sent');
    await screenshot('every-kind-2-dashboard-synced');
  });
});
