import { describe, expect, it } from 'vitest';
import { flashed, useSignedUpWithoutJavaScript } from '../../helpers/browser.js';
import { fitFile } from '../../helpers/fit-files.js';

const person = useSignedUpWithoutJavaScript('activities-confirm@example.com');

describe('the activities page’s confirmations and confirm steps, without JavaScript', () => {
  it('says what an upload did, also for the same file again, and asks before deleting an activity', async () => {
    const { page, stack } = person;
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
    expect(await flashed(page)).toBe('Uploaded Harbour ride.');
    await upload();
    expect(await flashed(page)).toBe('This file was already uploaded: it is kept once, as Harbour ride.');

    await page.getByRole('form', { name: 'Harbour ride' }).getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete Harbour ride?');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${stack.appUrl}/activities`);
    expect(await flashed(page)).toBe('Deleted Harbour ride here.');
    expect(await page.getByText('No activities yet.').count()).toBe(1);
  });
});
