import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  SCREENS,
  SCREENSHOTS,
  expectDayChart,
  pageWidth,
  signedInPageAt,
  smallTapTargets,
  useSignedInPerson,
} from '../../helpers/browser.js';
import { AMOUNT_NAMES } from '../../nutrition/helpers.js';

const ZONE = 'Europe/Madrid';
/** Every amount an item has: its carbs, then each declared amount (src/nutrition/meal.fields.ts). */
const ITEM_AMOUNT_NAMES = ['carbs', ...AMOUNT_NAMES];
const ITEMS = [1, 2, 3];
/** Item n has n × (its place + 1) of each amount, so the day holds 6 × (place + 1) of it. */
const amountOf = (n: number, name: string) => n * (ITEM_AMOUNT_NAMES.indexOf(name) + 1);
const dayTotalOf = (name: string) => ITEMS.reduce((sum, n) => sum + amountOf(n, name), 0);

let today: string;

const person = useSignedInPerson(ZONE, 'meals-at-a-glance@example.com', async (page, stack) => {
  today = DateTime.now().setZone(ZONE).toISODate()!;
  for (const n of ITEMS) {
    const amounts = Object.fromEntries(ITEM_AMOUNT_NAMES.map((name) => [name, amountOf(n, name)]));
    const item = { name: `Item ${String(n)}`, ...amounts, logged_at: `${today}T0${String(6 + n)}:00:00` };
    expect((await page.request.post(`${stack.appUrl}/api/meals`, { data: item })).status()).toBe(201);
  }
});

describe.each(SCREENS)('the meals day at a glance on a %s', (screen, options) => {
  const width = options.viewport!.width;

  it('shows the day’s total of every amount, and a compact list whose item opens its form, large enough to tap', async () => {
    const page = await signedInPageAt(person, options, ZONE, `/meals?date=${today}`);
    for (const name of ITEM_AMOUNT_NAMES) {
      const total = page.getByTestId('day-totals').locator(`[data-amount="${name}"] dd`);
      expect(await total.isVisible(), name).toBe(true);
      expect(await total.textContent(), name).toMatch(new RegExp(`^${String(dayTotalOf(name))} `));
    }
    const lines = page.locator('ul.meal-list > li');
    expect(await lines.count()).toBe(ITEMS.length);
    for (const line of await lines.all()) expect((await line.boundingBox())!.height).toBeLessThan(120);
    const form = page.getByRole('form', { name: /^Item 2 at / });
    expect(await form.isVisible()).toBe(false);

    await lines.nth(1).locator('details.meal-item > summary').click();
    expect(await form.isVisible()).toBe(true);
    expect(await form.getByLabel('Carbs (g)').inputValue()).toBe(String(amountOf(2, 'carbs')));
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    expect(await smallTapTargets(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/meals-at-a-glance-${screen}.png`, fullPage: true });
    await page.context().close();
  });

  it('shows the week’s energy on the dashboard, day by day, within the screen', async () => {
    const page = await signedInPageAt(person, options, ZONE, '/');
    expect(await page.getByTestId('week-energy').textContent()).toContain(`${String(dayTotalOf('kcal'))} kcal in the last 7 days`);
    await expectDayChart(page.locator('figure[data-chart="chart-week-energy"]'), width, 1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-week-energy-${screen}.png`, fullPage: true });
    await page.context().close();
  });
});
