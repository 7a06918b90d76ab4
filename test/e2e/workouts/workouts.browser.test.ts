import { describe, it } from 'vitest';
import { SCREENS, SCREENSHOTS, expectFitsTheScreen, signedInPageAt, useSignedInPerson } from '../../helpers/browser.js';
import { uploadRide } from '../../workouts/helpers.js';

const ZONE = 'Europe/Madrid';
const EMAIL = 'workouts-in-a-browser@example.com';
/** A workout whose every column is filled, with a name as long as people give them. */
const LONG_WORKOUT_NAME = 'Early morning ride along the harbour wall and back through the old town';

const person = useSignedInPerson(ZONE, EMAIL, async (_page, stack) => {
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', EMAIL).executeTakeFirstOrThrow();
  await uploadRide(stack, id, LONG_WORKOUT_NAME);
});

describe.each(SCREENS)('the workouts page on a %s', (_screen, options) => {
  const width = options.viewport!.width;

  it('lists a workout the service holds, reached from the navigation, and fits it in the screen, every control large enough to tap', async () => {
    const page = await signedInPageAt(person, options, ZONE, '/');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Workouts' }).click();
    await page.getByRole('cell', { name: LONG_WORKOUT_NAME }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/workouts-listed-${width}.png`, fullPage: true });
    await expectFitsTheScreen(page, width);
    await page.context().close();
  });
});
