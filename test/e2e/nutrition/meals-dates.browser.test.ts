import { DateTime } from 'luxon';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signUpAndConnect } from '../../helpers/browser.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { openMealItem } from '../../nutrition/helpers.js';

const ZONE = 'Pacific/Auckland';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A person whose browser speaks `locale`, with a meal logged today at 23:40 in their zone. */
async function personSpeaking(locale: string, email: string): Promise<{ page: Page; today: string }> {
  const page = await (await browser.newContext({ timezoneId: ZONE, locale })).newPage();
  await signUpAndConnect(page, stack.appUrl, email);
  const today = DateTime.now().setZone(ZONE).toISODate()!;
  const added = await page.request.post(`${stack.appUrl}/api/meals`, {
    data: { name: 'Late dinner', carbs: 70, logged_at: `${today}T23:40:00` },
  });
  expect(added.status()).toBe(201);
  expect((await page.request.put(`${stack.appUrl}/api/wellness/${today}`, { data: { hrv: 60 } })).ok()).toBe(true);
  return { page, today };
}

/** Today as the dashboard, the meals page and the wellness page write it. */
async function todayAsWritten(page: Page, today: string): Promise<{ dashboard: string[]; meals: string; wellness: string }> {
  await page.goto(`${stack.appUrl}/`);
  const dashboard = await page.locator(`[data-sync-entry$="-${today}"] > a`).allTextContents();
  await page.goto(`${stack.appUrl}/meals?date=${today}`);
  const meals = (await page.getByRole('heading', { level: 1 }).textContent())!.replace(/^Meals on /, '');
  await page.goto(`${stack.appUrl}/wellness`);
  const wellness = (await page.locator(`tr[data-date="${today}"] th`).textContent())!;
  return { dashboard, meals, wellness };
}

describe('dates and times in the person’s locale', () => {
  it('writes a day one way on every page, and times on the 12-hour clock, for a browser in US English', async () => {
    const { page, today } = await personSpeaking('en-US', 'dates-us@example.com');
    const written = await todayAsWritten(page, today);
    expect(written.meals).toBe(DateTime.fromISO(today).toFormat('ccc, LLL d, yyyy'));
    expect(written).toEqual({ dashboard: [written.meals, written.meals], meals: written.meals, wellness: written.meals });

    await page.goto(`${stack.appUrl}/meals?date=${today}`);
    expect(await (await openMealItem(page, /^Late dinner at 11:40\sPM$/)).getByTestId('logged-at').textContent()).toMatch(
      /^11:40\sPM at UTC\+1[23]:00$/,
    );
    await page.context().close();
  });

  it('writes them in German, on the 24-hour clock, for a browser in German', async () => {
    const { page, today } = await personSpeaking('de-DE', 'dates-de@example.com');
    const written = await todayAsWritten(page, today);
    expect(written.meals).toBe(
      DateTime.fromISO(today).setLocale('de-DE').toLocaleString({ weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }),
    );
    expect(written).toEqual({ dashboard: [written.meals, written.meals], meals: written.meals, wellness: written.meals });

    await page.goto(`${stack.appUrl}/meals?date=${today}`);
    expect(await (await openMealItem(page, 'Late dinner at 23:40')).getByTestId('logged-at').textContent()).toMatch(
      /^23:40 at UTC\+1[23]:00$/,
    );
    await page.context().close();
  });
});
