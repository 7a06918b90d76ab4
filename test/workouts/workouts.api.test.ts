import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { signUpNewUser } from '../helpers/flows.js';
import { LISTING_AS_DEFAULT, connectedAthlete, listingRequests, uploadRide, type WorkoutsListing } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterEach(async () => {
  await stack.changeSandbox(LISTING_AS_DEFAULT);
});
afterAll(async () => {
  await stack.close();
});

describe('GET /api/workouts', () => {
  it('lists the workouts the service holds for the person, with the fields it could read, fresh and when', async () => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    const asked = Date.now();
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(200);
    const listing = (await response.json()) as { fetchedAt: string };
    expect(listing).toEqual({
      workouts: [{ name: 'Long ride', start: '2026-03-01T06:30:00.000Z', type: 'cycling', durationS: 5400, distanceM: 45_000 }],
      notes: [],
      stale: false,
      fetchedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(Date.parse(listing.fetchedAt)).toBeGreaterThanOrEqual(asked - 1000);
  });

  it.each([
    ['an object without a list', 'object-without-list', [], 'The answer held no list of workouts.'],
    [
      'an array of odd objects',
      'odd-entries',
      [{ name: 'Partly readable', distanceM: 12_000 }],
      '2 entries were not objects and are not shown.',
    ],
    ['a body that is not JSON', 'not-json', [], "The service's answer was not JSON, so no workouts can be shown."],
  ] as const)('answers 200 with notes when the service answers %s', async (_what, workoutsListing, workouts, note) => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    await stack.changeSandbox({ workoutsListing });
    const listing = await bodyOf<WorkoutsListing>(await client.get('/api/workouts'));
    expect(listing.workouts).toEqual(workouts);
    expect(listing.notes).toContain(note);
  });

  it('answers 403 reconnect_needed when the service refuses a scope the grant lacks', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ withdrawnScopes: ['workout:read'] });
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 'reconnect_needed',
      message: expect.stringMatching(/insufficient_scope.*workout:read/),
    });
    expect((await listingRequests(stack))['403']).toBeGreaterThan(0);
  });

  it('answers 403 reconnect_needed without asking the service when the grant lacks workout:read', async () => {
    await stack.changeSandbox({ withheldScopes: ['workout:read'] });
    const { client } = await connectedAthlete(stack);
    const before = await listingRequests(stack);
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'reconnect_needed', message: expect.stringContaining('workout:read') });
    expect(await listingRequests(stack)).toEqual(before);
  });

  it('answers 403 reconnect_needed to a person who has not connected', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'reconnect_needed', message: expect.stringContaining('not connected') });
  });

  it('answers 503 service_unavailable while the service is down and no list of the person is known', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'] });
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: 'service_unavailable', message: expect.stringContaining('try again in a moment') });
  });

  it('passes on when to try again while the service limits the rate (Retry-After)', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['429'], retryAfterS: 7 });
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('answers 401 to a signed-out request', async () => {
    expect((await stack.browser().get('/api/workouts')).status).toBe(401);
  });
});
