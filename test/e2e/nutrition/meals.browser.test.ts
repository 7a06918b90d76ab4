import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/provider/service-error.js';
import { sendEntry } from '../../../src/sync/send-entry.js';
import { launchChromium, signUpAndConnect } from '../../helpers/browser.js';
import { serviceApiWith } from '../../helpers/service-api.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { openMealItem } from '../../nutrition/helpers.js';

let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
  page = await (await browser.newContext({ timezoneId: 'America/St_Johns', locale: 'en-GB' })).newPage();
  await signUpAndConnect(page, stack.appUrl, 'meals@example.com');
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const addForm = () => page.getByRole('form', { name: 'Add an item' });
const openItem = (label: string) => openMealItem(page, label);

describe('the meals page', () => {
  it('adds an item at a time of the user’s zone and shows how it will be sent, with the day pending', async () => {
    await page.goto(`${stack.appUrl}/meals?date=2026-07-01`);
    await addForm().getByLabel('Time').fill('08:30');
    await addForm().getByLabel('Name').fill('Porridge');
    await addForm().getByLabel('Carbs (g)').fill('45.5');
    await addForm().getByLabel('How fast the carbs act').selectOption('RAPID');
    await addForm().getByRole('button', { name: 'Add' }).click();

    await page.waitForURL(`${stack.appUrl}/meals?date=2026-07-01`);
    const item = await openItem('Porridge at 08:30');
    expect(await item.textContent()).toContain('2026-07-01T08:30:00-02:30');
    expect(await page.getByTestId('sync-status').textContent()).toContain('Waiting to be sent');
    await page.screenshot({ path: 'test-output/meals-page.png', fullPage: true });
  });

  it('edits an item, keeping its time, and shows what went wrong for bad input', async () => {
    const item = await openItem('Porridge at 08:30');
    await item.getByLabel('Carbs (g)').fill('lots');
    await item.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('“Porridge” was not saved: Carbs must be a decimal number of grams');
    expect(await item.getByLabel('Carbs (g)').inputValue()).toBe('lots');

    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByLabel('Carbs (g)').fill('50');
    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${stack.appUrl}/meals?date=2026-07-01`);
    expect(await (await openItem('Porridge at 08:30')).getByLabel('Carbs (g)').inputValue()).toBe('50');
  });

  it('moves between days and deletes an item', async () => {
    await page.getByRole('link', { name: 'Thu, 2 Jul 2026 →' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Meals on Thu, 2 Jul 2026');
    await page.getByRole('link', { name: '← Wed, 1 Jul 2026' }).click();
    await (await openItem('Porridge at 08:30')).getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No items on this day yet.').waitFor();
  });

  it('keeps every value typed into a refused form and marks the field in error next to it', async () => {
    await page.goto(`${stack.appUrl}/meals?date=2026-07-03`);
    await addForm().getByLabel('Time').fill('12:45');
    await addForm().getByLabel('Name').fill('Pasta salad');
    await addForm().getByLabel('Carbs (g)').fill('-5');
    await addForm().getByLabel('Protein (g)').fill('12,5');
    await addForm().getByLabel('How fast the carbs act').selectOption('RAPID');
    await addForm().getByRole('button', { name: 'Add' }).click();

    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain("The new item was not added: Carbs can't be negative.");
    const carbs = addForm().getByLabel('Carbs (g)');
    expect(await carbs.inputValue()).toBe('-5');
    expect(await carbs.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await carbs.getAttribute('aria-describedby');
    expect(await page.locator(`#${describedBy}`).textContent()).toBe("Carbs can't be negative.");
    expect(await addForm().getByLabel('Time').inputValue()).toBe('12:45');
    expect(await addForm().getByLabel('Name').inputValue()).toBe('Pasta salad');
    expect(await addForm().getByLabel('Protein (g)').inputValue()).toBe('12,5');
    expect(await addForm().getByLabel('Protein (g)').getAttribute('aria-invalid')).toBeNull();
    expect(await addForm().getByLabel('How fast the carbs act').inputValue()).toBe('RAPID');
    await page.screenshot({ path: 'test-output/form-error.png', fullPage: true });

    await carbs.fill('40');
    await addForm().getByRole('button', { name: 'Add' }).click();
    await page.waitForURL(`${stack.appUrl}/meals?date=2026-07-03`);
    expect(await (await openItem('Pasta salad at 12:45')).getByLabel('Protein (g)').inputValue()).toBe('12.5');
  });

  it('shows a day the service refused, with an item logged at another offset at its own time and the user’s', async () => {
    const added = await page.request.post(`${stack.appUrl}/api/meals`, {
      data: { name: 'Late dinner', carbs: 70, logged_at: '2026-07-04T23:30:00-05:00' },
    });
    expect(added.status()).toBe(201);
    const { id: userId } = await stack.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'meals@example.com')
      .executeTakeFirstOrThrow();
    const refusing = serviceApiWith({
      postJson: async () => {
        throw new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many');
      },
    });
    await sendEntry(stack.sendDependencies(refusing), { userId, kind: 'nutrition', subject: '2026-07-04' });

    await page.goto(`${stack.appUrl}/meals?date=2026-07-04`);
    const status = page.getByTestId('sync-status');
    expect(await status.locator('.sync-headline').textContent()).toBe('Refused by the service');
    await status.getByText('Details').click();
    expect(await status.getByRole('listitem').last().textContent()).toBe(
      'Reason recorded: HTTP 400: invalid_request: items.0.carbs: too many',
    );
    const item = await openItem('Late dinner at 23:30');
    expect(await item.getByTestId('logged-at').textContent()).toContain('23:30 at UTC−05:00, 02:00 on 5 Jul your time');
    await page.screenshot({ path: 'test-output/day-refused-item.png', fullPage: true });
  });

  it('answers a date that does not exist with a page that says so and links to today', async () => {
    await page.goto(`${stack.appUrl}/meals?date=2026-02-30`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('No such date');
    await page.getByRole('link', { name: 'Go to today' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Meals on \w{3}, \d{1,2} \w{3} \d{4}$/);
  });
});
