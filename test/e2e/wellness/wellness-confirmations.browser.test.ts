import { describe, expect, it } from 'vitest';
import { useSignedUpWithoutJavaScript } from '../../helpers/browser.js';

const DATE = '2026-07-01';
/** The day as the pages write it for en-GB. */
const DAY = 'Wed, 1 Jul 2026';

const person = useSignedUpWithoutJavaScript('wellness-confirm@example.com');

describe('the wellness page’s confirmations, without JavaScript', () => {
  it('tells every problem of a wellness day at once, in plain words, and Back shows the page, not a form sent again', async () => {
    const { page, stack } = person;
    await page.goto(`${stack.appUrl}/wellness?date=${DATE}`);
    const row = page.locator(`tr[data-date="${DATE}"]`);
    await row.getByLabel(`HRV (ms) on ${DAY}`).fill('-3');
    await row.getByLabel(`Resting HR (bpm) on ${DAY}`).fill('48.5');
    await row.getByLabel(`Sleep hours on ${DAY}`).fill('75');
    await row.getByLabel(`Weight (kg) on ${DAY}`).fill('900');
    await row.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('alert').textContent()).toBe(
      `${DAY} was not saved: HRV (ms) must be a number of milliseconds from 1 to 500. ` +
        'Resting HR (bpm) must be a whole number of beats per minute from 20 to 250. ' +
        'Sleep hours must be a whole number of hours from 0 to 24. Weight (kg) must be a number of kilograms from 20 to 400.',
    );
    expect(await row.locator('input[aria-invalid="true"]').count()).toBe(4);
    expect(await row.getByLabel(`Resting HR (bpm) on ${DAY}`).inputValue()).toBe('48.5');
    await page.reload();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.goBack();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Wellness');
  });
});
