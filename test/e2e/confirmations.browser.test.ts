import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { fitFile } from '../helpers/fit-files.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;
let page: Page;

const DATE = '2026-07-01';
/** The day as the pages write it for en-GB. */
const DAY = 'Wed, 1 Jul 2026';

// Without JavaScript: every confirmation and every confirm step is plain HTML.
beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  browser = await launchChromium();
  page = await (await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' })).newPage();
  await page.goto(`${stack.appUrl}/signup`);
  await page.getByLabel('Email').fill('confirm@example.com');
  await page.getByLabel('Password').fill('a long password');
  await page.getByLabel('Time zone').fill('Europe/Berlin');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.waitForURL(`${stack.appUrl}/?notice=connected`);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** The confirmation at the top of the page, announced politely. */
async function flashed(): Promise<string | null> {
  return page.getByRole('status').textContent();
}

describe('confirmations and confirm steps, without JavaScript', () => {
  it('says once what adding, saving and deleting a meal did, and asks before the delete', async () => {
    await page.goto(`${stack.appUrl}/meals?date=${DATE}`);
    const add = page.getByRole('form', { name: 'Add an item' });
    await add.getByLabel('Time').fill('08:30');
    await add.getByLabel('Name').fill('Porridge');
    await add.getByLabel('Carbs (g)').fill('45');
    await add.getByRole('button', { name: 'Add' }).click();
    expect(await flashed()).toBe(`Added Porridge at 08:30 on ${DAY}.`);
    await page.reload();
    expect(await page.getByRole('status').count()).toBe(0);

    const item = page.getByRole('form', { name: 'Porridge at 08:30' });
    await item.getByLabel('Carbs (g)').fill('50');
    await item.getByRole('button', { name: 'Save' }).click();
    expect(await flashed()).toBe(`Saved Porridge at 08:30 on ${DAY}.`);

    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByRole('link', { name: 'Delete' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Delete Porridge at 08:30 on ${DAY}?`);
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await page.getByRole('form', { name: 'Porridge at 08:30' }).count()).toBe(1);

    await page.getByRole('form', { name: 'Porridge at 08:30' }).getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${stack.appUrl}/meals?date=${DATE}`);
    expect(await flashed()).toBe(`Deleted Porridge at 08:30 on ${DAY}.`);
    expect(await page.getByText('No items on this day yet.').count()).toBe(1);
  });

  it('says what an upload did, also for the same file again, and asks before deleting an activity', async () => {
    const upload = async () => {
      await page.goto(`${stack.appUrl}/activities`);
      const form = page.getByRole('form', { name: 'Upload a .fit file' });
      await form.getByLabel('Name').fill('Harbour ride');
      await form
        .locator('input[type=file]')
        .setInputFiles({ name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(1)) });
      await form.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(`${stack.appUrl}/activities`);
    };
    await upload();
    expect(await flashed()).toBe('Uploaded Harbour ride.');
    await upload();
    expect(await flashed()).toBe('This file was already uploaded: it is kept once, as Harbour ride.');

    await page.getByRole('form', { name: 'Harbour ride' }).getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete Harbour ride?');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${stack.appUrl}/activities`);
    expect(await flashed()).toBe('Deleted Harbour ride here.');
    expect(await page.getByText('No activities yet.').count()).toBe(1);
  });

  it('asks before Disconnect, and Cancel keeps the connection', async () => {
    await page.goto(stack.appUrl);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Disconnect from the Athlete Data Service?');
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await page.getByTestId('connection-status').textContent()).toBe('Connected');

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForURL(`${stack.appUrl}/?notice=disconnected`);
    expect(await page.getByTestId('connection-status').textContent()).toBe('Not connected');
  });

  it('says so on the sign-in page after signing out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${stack.appUrl}/login?signed_out=1`);
    expect(await flashed()).toBe('You are signed out.');
  });
});
