import { describe, expect, it } from 'vitest';
import { SCREENS, expectFitsTheScreen, sentOnDashboard, SYNCING_ZONE, useSyncingBrowser } from '../../helpers/browser.js';
import { fitFile } from '../../helpers/fit-files.js';

const SCREENSHOTS = 'test-output';

const app = useSyncingBrowser('activities-in-a-browser@example.com');

describe('the activities page in a real browser', () => {
  it('uploads a .fit file from its form, which the dashboard shows sent and the service holds', async () => {
    await app.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Activities' }).click();
    const form = app.page.getByRole('form', { name: 'Upload a .fit file' });
    await form.getByLabel('Name').fill('Harbour ride');
    await form
      .locator('input[type=file]')
      .setInputFiles({ name: 'ride.fit', mimeType: 'application/octet-stream', buffer: Buffer.from(fitFile(7)) });
    await form.getByRole('button', { name: 'Upload' }).click();
    await app.page.getByRole('form', { name: 'Harbour ride' }).waitFor();
    await app.page.screenshot({ path: `${SCREENSHOTS}/activities-uploaded.png`, fullPage: true });

    expect(await sentOnDashboard(app.page, app.stack.appUrl, 'activities', 'Harbour ride')).toContain('Sent');
    const athlete = Object.values((await app.stack.sandboxState()).athletes)[0]!;
    expect(Object.values(athlete.workouts).map((workout) => workout.payload.name)).toEqual(['Harbour ride']);
  });

  it.each(SCREENS)('fits the page with the activity on a %s, every control on screen and large enough to tap', async (_screen, options) => {
    const storageState = await app.page.context().storageState();
    const onScreen = await (
      await app.browser.newContext({ ...options, timezoneId: SYNCING_ZONE, locale: 'en-GB', storageState })
    ).newPage();
    await onScreen.goto(`${app.stack.appUrl}/activities`);
    await onScreen.getByRole('form', { name: 'Harbour ride' }).waitFor();
    await expectFitsTheScreen(onScreen, options.viewport!.width);
    await onScreen.context().close();
  });
});
