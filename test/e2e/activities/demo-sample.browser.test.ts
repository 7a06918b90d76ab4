import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchChromium, signUpAndConnect } from '../../helpers/browser.js';
import { DEMO_START_MS, demoEnvironment, demoPorts, printedAfter, startDemo, type DemoPorts } from '../../helpers/demo.js';
import type { Running } from '../../helpers/processes.js';
import { eventually } from '../../helpers/wait.js';

/** The .fit file the demo prints for a person without one at hand (src/activities/sample-file.ts), in the demo's own browser flow. */

let ports: DemoPorts;
let demo: Running;
let browser: Browser;
let appUrl: string;

beforeAll(async () => {
  ports = await demoPorts();
  demo = await startDemo(demoEnvironment(ports));
  appUrl = `http://localhost:${ports.web}`;
  browser = await launchChromium();
}, DEMO_START_MS);
afterAll(async () => {
  await browser?.close();
  await demo?.stop('SIGINT');
});

describe('the demo in a browser', () => {
  it('offers a .fit file that the app takes and sends to the sandbox', async () => {
    const page = await browser.newPage();
    await signUpAndConnect(page, appUrl, `sample-${Date.now()}@example.com`);
    await page.goto(`${appUrl}/activities`);
    const form = page.getByRole('form', { name: 'Upload a .fit file' });
    await form.locator('input[type=file]').setInputFiles(printedAfter(demo, 'A .fit file to upload:'));
    await form.getByRole('button', { name: 'Upload' }).click();
    await eventually('the sample at the sandbox', async () => {
      const state = (await (await fetch(`http://127.0.0.1:${ports.sandbox}/_sandbox/state`)).json()) as {
        athletes: Record<string, { workouts: Record<string, unknown> }>;
      };
      return Object.values(state.athletes).some((athlete) => Object.keys(athlete.workouts).length > 0) ? true : undefined;
    });
    await page.close();
  });
});
