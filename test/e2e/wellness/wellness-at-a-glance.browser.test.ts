import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/dates/local-today.js';
import { SCREENS, SCREENSHOTS, expectDayChart, pageWidth, signedInPageAt, useSignedInPerson } from '../../helpers/browser.js';
import { EVERY_MEASUREMENT, MEASUREMENT_NAMES } from '../../wellness/helpers.js';

const ZONE = 'Europe/Madrid';
const WELLNESS_DAYS_BACK = [0, 3, 10];
/** A day's measurements, a little different each day so the lines move. */
const measurementsOf = (back: number) => Object.fromEntries(Object.entries(EVERY_MEASUREMENT).map(([name, value]) => [name, value - back]));

const person = useSignedInPerson(ZONE, 'wellness-at-a-glance@example.com', async (page, stack) => {
  const today = DateTime.now().setZone(ZONE).toISODate()!;
  for (const back of WELLNESS_DAYS_BACK) {
    const day = await page.request.put(`${stack.appUrl}/api/wellness/${addDays(today, -back)}`, { data: measurementsOf(back) });
    expect(day.ok()).toBe(true);
  }
});

describe.each(SCREENS)('the wellness charts at a glance on a %s', (screen, options) => {
  const width = options.viewport!.width;

  it('charts each wellness measurement’s last 30 days within the screen, with the numbers as text', async () => {
    const page = await signedInPageAt(person, options, ZONE, '/wellness');
    for (const name of MEASUREMENT_NAMES) {
      await expectDayChart(page.locator(`figure[data-chart="chart-${name}"]`), width, WELLNESS_DAYS_BACK.length);
    }
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `${SCREENSHOTS}/wellness-charts-${screen}.png`, fullPage: true });
    await page.context().close();
  });
});
