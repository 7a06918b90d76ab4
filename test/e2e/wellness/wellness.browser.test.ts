import { describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../../src/dates/date-style.js';
import { SCREENS, expectFitsTheScreen, sentOnDashboard, SYNCING_ZONE, useSyncingBrowser } from '../../helpers/browser.js';

const SCREENSHOTS = 'test-output';

const app = useSyncingBrowser('wellness-in-a-browser@example.com');

describe('the wellness page in a real browser', () => {
  it('logs a day, which the dashboard shows sent and the service holds', async () => {
    await app.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Wellness' }).click();
    const today = (await app.page.locator('tbody tr').nth(1).getAttribute('data-date'))!; // the first row is tomorrow
    const day = dateStyleFor('en-GB').day(today);
    await app.page.getByLabel(`Resting HR (bpm) on ${day}`).fill('48');
    await app.page.getByLabel(`HRV (ms) on ${day}`).fill('71.5');
    await app.page
      .getByRole('form', { name: `Wellness on ${day}` })
      .getByRole('button', { name: 'Save' })
      .click();
    await app.page.waitForURL(`${app.stack.appUrl}/wellness`);
    expect(await app.page.getByLabel(`Resting HR (bpm) on ${day}`).inputValue()).toBe('48');
    await app.page.screenshot({ path: `${SCREENSHOTS}/wellness-logged.png`, fullPage: true });

    expect(await sentOnDashboard(app.page, app.stack.appUrl, 'wellness', day)).toContain('Sent');
    const athlete = Object.values((await app.stack.sandboxState()).athletes)[0]!;
    expect(athlete.wellness?.[today]?.payload).toMatchObject({ date: today, restingHr: 48, hrv: 71.5 });
  });

  it.each(SCREENS)(
    'fits the page with the day logged on a %s, every control on screen and large enough to tap',
    async (_screen, options) => {
      const storageState = await app.page.context().storageState();
      const onScreen = await (
        await app.browser.newContext({ ...options, timezoneId: SYNCING_ZONE, locale: 'en-GB', storageState })
      ).newPage();
      await onScreen.goto(`${app.stack.appUrl}/wellness`);
      await expectFitsTheScreen(onScreen, options.viewport!.width);
      await onScreen.context().close();
    },
  );
});
