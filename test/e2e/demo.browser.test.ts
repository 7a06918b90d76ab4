import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signUpAndConnect } from '../helpers/browser.js';
import { DEMO_START_MS, demoEnvironment, demoPorts, printedAfter, startDemo, type DemoPorts } from '../helpers/demo.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { CookieClient } from '../helpers/http-client.js';
import { workload, writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';

const SCREENSHOTS = 'test-output/screenshots';

let ports: DemoPorts;
let demo: Running;
let browser: Browser;
let appUrl: string;

beforeAll(async () => {
  ports = await demoPorts();
  demo = await startDemo(demoEnvironment(ports, { ADMIN_EMAILS: 'admin@example.com' }));
  appUrl = `http://localhost:${ports.web}`;
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, DEMO_START_MS);
afterAll(async () => {
  await browser?.close();
  await demo?.stop('SIGINT');
});

/** How wide the page is laid out: wider than the screen means sideways scrolling of the whole page. */
function pageWidth(page: Page): Promise<number> {
  return page.locator('html').evaluate((html) => html.scrollWidth);
}

describe('the demo in a browser', () => {
  it.each(['127.0.0.1', 'localhost'])('opened at %s, signs a person up and connects them', async (host) => {
    const page = await browser.newPage();
    await signUpAndConnect(page, appUrl, `at-${host}-${Date.now()}@example.com`, `http://${host}:${ports.web}`);
    expect(await page.getByText('Not connected').count()).toBe(0);
    await page.close();
  });

  it('leads from the queue dashboard’s printed link through sign-in back to the dashboard', async () => {
    const [, address, email, password] = demo.output().match(/queue dashboard: (\S+), signed in as (\S+) with the password (\S+)/) ?? [];
    const page = await browser.newPage();
    await page.goto(address!);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Email').fill(email!);
    await page.getByLabel('Password').fill(password!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(address!);
    await page.getByText('sync-fresh', { exact: true }).first().waitFor();
    await page.close();
  });

  describe.each([1280, 390])('at %i px', (width) => {
    beforeAll(async () => {
      // A mail to read: the service withdraws a scope the grant held, and the next send meets it.
      if ((await fetch(`http://127.0.0.1:${ports.mailPage}/`).then((response) => response.text())).includes('None yet')) {
        const sandboxSettings = (settings: object) =>
          fetch(`http://127.0.0.1:${ports.sandbox}/_sandbox/settings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(settings),
          });
        const client = new CookieClient(appUrl);
        await signUpNewUser(client);
        expect((await connect(client)).status).toBe(303);
        await sandboxSettings({ withdrawnScopes: [workload.scope] });
        await writeDay(client, '2026-03-10');
        await eventually('a mail on the mail page', async () =>
          (await (await fetch(`http://127.0.0.1:${ports.mailPage}/`)).text()).includes('<article>') ? true : undefined,
        );
        await sandboxSettings({ withdrawnScopes: [] });
      }
    }, 60_000);

    it.each([
      ['sandbox-state', () => printedAfter(demo, "The sandbox's state page:")],
      ['mail-page', () => printedAfter(demo, 'Mails the app sent:').split(' ')[0]!],
    ])('fits %s in the screen’s width', async (name, address) => {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(address());
      expect(await page.locator('meta[name="viewport"]').count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      await page.close();
    });
  });
});
