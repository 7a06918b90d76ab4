import { describe, expect, it } from 'vitest';
import { flashed, useSignedUpWithoutJavaScript } from '../../helpers/browser.js';
import { openMealItem } from '../../nutrition/helpers.js';

const DATE = '2026-07-01';
/** The day as the pages write it for en-GB. */
const DAY = 'Wed, 1 Jul 2026';

const person = useSignedUpWithoutJavaScript('meals-confirm@example.com');

describe('the meals page’s confirmations and confirm steps, without JavaScript', () => {
  it('says once what adding, saving and deleting a meal did, and asks before the delete', async () => {
    const { page, stack } = person;
    await page.goto(`${stack.appUrl}/meals?date=${DATE}`);
    const add = page.getByRole('form', { name: 'Add an item' });
    await add.getByLabel('Time').fill('08:30');
    await add.getByLabel('Name').fill('Porridge');
    await add.getByLabel('Carbs (g)').fill('45');
    await add.getByRole('button', { name: 'Add' }).click();
    expect(await flashed(page)).toBe(`Added Porridge at 08:30 on ${DAY}.`);
    await page.reload();
    expect(await page.getByRole('status').count()).toBe(0);

    const item = await openMealItem(page, 'Porridge at 08:30');
    await item.getByLabel('Carbs (g)').fill('50');
    await item.getByRole('button', { name: 'Save' }).click();
    expect(await flashed(page)).toBe(`Saved Porridge at 08:30 on ${DAY}.`);

    await (await openMealItem(page, 'Porridge at 08:30')).getByRole('link', { name: 'Delete' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Delete Porridge at 08:30 on ${DAY}?`);
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await page.getByRole('form', { name: 'Porridge at 08:30', includeHidden: true }).count()).toBe(1);

    await (await openMealItem(page, 'Porridge at 08:30')).getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${stack.appUrl}/meals?date=${DATE}`);
    expect(await flashed(page)).toBe(`Deleted Porridge at 08:30 on ${DAY}.`);
    expect(await page.getByText('No items on this day yet.').count()).toBe(1);
    await page.goBack();
    await page.waitForURL(`${stack.appUrl}/meals?date=${DATE}`);
    expect(await flashed(page)).toBe(`Porridge at 08:30 on ${DAY} was deleted.`);
  });

  it('says a meal logged after Disconnect waits for a connection, not to be sent', async () => {
    const { page, stack } = person;
    await page.goto(stack.appUrl);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByTestId('flash').filter({ hasText: 'Disconnected.' }).waitFor();
    await page.goto(`${stack.appUrl}/meals?date=${DATE}`);
    const add = page.getByRole('form', { name: 'Add an item' });
    await add.getByLabel('Time').fill('12:30');
    await add.getByLabel('Name').fill('Soup');
    await add.getByLabel('Carbs (g)').fill('20');
    await add.getByRole('button', { name: 'Add' }).click();
    expect(await page.getByTestId('sync-status').locator('.sync-headline').textContent()).toBe('Waiting for a connection');
  });
});
