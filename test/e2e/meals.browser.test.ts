import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
  page = await (await browser.newContext({ timezoneId: 'America/St_Johns' })).newPage();
  await page.goto(`${stack.appUrl}/signup`);
  await page.getByLabel('Email').fill('meals@example.com');
  await page.getByLabel('Password').fill('a long password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.waitForURL(`${stack.appUrl}/?notice=connected`);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const addForm = () => page.getByRole('form', { name: 'Add an item' });

describe('the meals page', () => {
  it('adds an item at a time of the user’s zone and shows how it will be sent, with the day pending', async () => {
    await page.goto(`${stack.appUrl}/meals?date=2026-07-01`);
    await addForm().getByLabel('Time').fill('08:30');
    await addForm().getByLabel('Name').fill('Porridge');
    await addForm().getByLabel('Carbs (g)').fill('45.5');
    await addForm().getByLabel('Absorption').selectOption('RAPID');
    await addForm().getByRole('button', { name: 'Add' }).click();

    const item = page.getByRole('form', { name: 'Porridge at 08:30' });
    await item.waitFor();
    expect(await item.textContent()).toContain('2026-07-01T08:30:00-02:30');
    expect(await page.getByTestId('sync-status').textContent()).toContain('Waiting to be sent');
    await page.screenshot({ path: 'test-output/meals-page.png', fullPage: true });
  });

  it('edits an item, keeping its time, and shows what went wrong for bad input', async () => {
    const item = page.getByRole('form', { name: 'Porridge at 08:30' });
    await item.getByLabel('Carbs (g)').fill('lots');
    await item.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('carbs must be a decimal number of grams');

    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByLabel('Carbs (g)').fill('50');
    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${stack.appUrl}/meals?date=2026-07-01`);
    expect(await page.getByRole('form', { name: 'Porridge at 08:30' }).getByLabel('Carbs (g)').inputValue()).toBe('50');
  });

  it('moves between days and deletes an item', async () => {
    await page.getByRole('link', { name: '2026-07-02 →' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Meals on 2026-07-02');
    await page.getByRole('link', { name: '← 2026-07-01' }).click();
    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No items on this day yet.').waitFor();
  });
});
