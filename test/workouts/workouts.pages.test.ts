import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { LISTING_AS_DEFAULT, connectedAthlete, uploadRide } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  // A stalled request is given up after a second, not the default fifteen.
  stack = await startStack({ env: { ATHLETE_TIMEOUT_S: '1' } });
});
afterEach(async () => {
  await stack.changeSandbox(LISTING_AS_DEFAULT);
});
afterAll(async () => {
  await stack.close();
});

/** The Workouts page, which must answer 200 whatever happened. */
async function workoutsPage(client: CookieClient): Promise<string> {
  const response = await client.get('/workouts');
  expect(response.status).toBe(200);
  return response.text();
}

const RECONNECT_BUTTON = '<a class="button" href="/connect">Reconnect</a>';

describe('the Workouts page', () => {
  it('shows the workouts from the service: start in the person’s zone, duration as h:mm:ss, distance in km', async () => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    const page = await workoutsPage(client);
    const row = page.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? '';
    // The person's zone is Europe/Berlin, an hour ahead of UTC in March.
    expect(row.match(/<td[^>]*>(.*?)<\/td>/g)).toEqual([
      '<td data-label="Name">Long ride</td>',
      '<td data-label="Start">Sun, 1 Mar 2026, 07:30</td>',
      '<td data-label="Type">cycling</td>',
      '<td data-label="Duration">1:30:00</td>',
      '<td data-label="Distance">45.00 km</td>',
    ]);
    expect(page).toContain('Times are in your time zone, Europe/Berlin');
    expect(page).toContain('As the Athlete Data Service lists them.');
    expect(page).not.toContain('could not read');
  });

  it('says when the service holds no workouts', async () => {
    const { client } = await connectedAthlete(stack);
    expect(await workoutsPage(client)).toContain('No workouts to show.');
  });

  it.each([
    ['an object without a list', 'object-without-list', 'The answer held no list of workouts.'],
    ['an array of odd objects', 'odd-entries', '2 entries were not objects and are not shown.'],
    ['a body that is not JSON', 'not-json', 'The service&#39;s answer was not JSON, so no workouts can be shown.'],
  ] as const)('says what it could not read when the service answers %s', async (_what, workoutsListing, note) => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    await stack.changeSandbox({ workoutsListing });
    const page = await workoutsPage(client);
    expect(page).toContain(note);
    expect(page).toContain('what this app could not read is said above');
    expect(page).not.toContain('Long ride');
  });

  it('shows the odd entries’ readable fields, and only the columns that have any', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ workoutsListing: 'odd-entries' });
    const page = await workoutsPage(client);
    expect(page.match(/<th scope="col">(.*?)<\/th>/g)).toEqual(['<th scope="col">Name</th>', '<th scope="col">Distance</th>']);
    expect(page).toContain('<td data-label="Name">Partly readable</td><td data-label="Distance">12.00 km</td>');
    expect(page).toContain('The duration of 1 entry could not be read.');
  });

  it('offers Reconnect when the service answers 403 insufficient_scope', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ withdrawnScopes: ['workout:read'] });
    const page = await workoutsPage(client);
    expect(page).toMatch(/role="alert"[^>]*>[^<]*lacks a scope[^<]*insufficient_scope/);
    expect(page).toContain(RECONNECT_BUTTON);
  });

  it('offers Reconnect when the grant lacks workout:read', async () => {
    await stack.changeSandbox({ withheldScopes: ['workout:read'] });
    const { client } = await connectedAthlete(stack);
    const page = await workoutsPage(client);
    expect(page).toContain('does not allow reading your workouts (workout:read)');
    expect(page).toContain(RECONNECT_BUTTON);
  });

  it('tells a person who disconnected plainly that connecting shows their workouts', async () => {
    const { client } = await connectedAthlete(stack);
    const disconnect = hiddenField(await (await client.get('/disconnect')).text(), '_csrf');
    expect((await client.postForm('/disconnect', { _csrf: disconnect })).status).toBe(303);
    const page = await workoutsPage(client);
    expect(page).toContain('You are not connected to the Athlete Data Service: connect to see your workouts.');
    expect(page).not.toContain('yet');
  });

  it('offers Connect to a person who has not connected', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect(await workoutsPage(client)).toContain('<a class="button" href="/connect">Connect</a>');
  });

  it.each(['503', '500', 'stall'] as const)('says the service is unavailable when it answers with a %s fault', async (fault) => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: [fault], stallMs: 60_000 });
    const page = await workoutsPage(client);
    expect(page).toContain('The Athlete Data Service is unavailable right now; try again in a moment.');
  });

  it('sends a signed-out person to sign in', async () => {
    const response = await stack.browser().get('/workouts');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2Fworkouts');
  });
});
