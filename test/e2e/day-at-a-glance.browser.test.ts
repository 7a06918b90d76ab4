import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { sendEntry } from '../../src/sync/send-entry.js';
import { SCREENS, SCREENSHOTS, appClientOf, expectDayChart, pageWidth, signedInPageAt, useSignedInPerson } from '../helpers/browser.js';
import { workload, writeDay } from '../helpers/kinds.js';

const ZONE = 'Europe/Madrid';
const EMAIL = 'at-a-glance@example.com';
/** The person's day of today, written through the test kind (test/helpers/kinds.ts) and sent. */
const person = useSignedInPerson(ZONE, EMAIL, async (page, stack) => {
  const today = DateTime.now().setZone(ZONE).toISODate()!;
  await writeDay(await appClientOf(page, stack.appUrl), today);
  const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', EMAIL).executeTakeFirstOrThrow();
  await sendEntry(stack.sendDependencies(), { userId, kind: workload.syncKind, subject: today });
});

describe.each(SCREENS)('the dashboard’s chart at a glance on a %s', (screen, options) => {
  const width = options.viewport!.width;

  it('draws a sparkline of what the service received on the dashboard, within the screen', async () => {
    const page = await signedInPageAt(person, options, ZONE, '/');
    const received = page.locator('figure[data-chart="chart-received"]');
    await expectDayChart(received, width, 14);
    expect(await received.locator('tbody tr').last().textContent()).toMatch(/[1-9]\d* entr(y|ies)$/);
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-received-${screen}.png`, fullPage: true });
    await page.context().close();
  });
});
