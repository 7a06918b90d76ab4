import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { LISTING_AS_DEFAULT, connectedAthlete, listingRequests, uploadRide, type WorkoutsListing } from './helpers.js';

/**
 * How often a person's workouts list asks the service, with the default settings: a list fetched
 * within the last 10 s is answered again, and 6 lists a minute may ask. The app's clock is moved
 * forward to pass the 10 s; the count of the minute runs on Redis's own.
 */

let stack: Stack;
let clockAheadMs = 0;

beforeAll(async () => {
  stack = await startStack({ clock: () => new Date(Date.now() + clockAheadMs) });
});
afterEach(async () => {
  await stack.changeSandbox(LISTING_AS_DEFAULT);
});
afterAll(async () => {
  await stack.close();
});

/** The requests the sandbox received for workouts lists, whatever it answered. */
async function listingCalls(): Promise<number> {
  return Object.values(await listingRequests(stack)).reduce((sum, count) => sum + count, 0);
}

async function listed(client: CookieClient): Promise<WorkoutsListing> {
  const response = await client.get('/api/workouts');
  expect(response.status).toBe(200);
  return (await response.json()) as WorkoutsListing;
}

/** Lists as many times as the person may ask the service in a minute, each past the 10 s; the last list. */
async function listSixTimes(client: CookieClient): Promise<WorkoutsListing> {
  let last: WorkoutsListing | undefined;
  for (let list = 0; list < 6; list++) {
    clockAheadMs += 10_000;
    last = await listed(client);
    expect(last.stale).toBe(false);
  }
  return last!;
}

describe('how often a person’s workouts list asks the service', () => {
  it('answers a list fetched within the last 10 s again, as it was, without asking; another person’s, and a later one, ask', async () => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    const first = await listed(client);
    const calls = await listingCalls();

    clockAheadMs += 9000;
    expect(await listed(client)).toEqual(first);
    expect(await listingCalls()).toBe(calls);

    const other = await connectedAthlete(stack);
    expect(await listed(other.client)).toMatchObject({ workouts: [], stale: false });
    expect(await listingCalls()).toBe(calls + 1);

    clockAheadMs += 1000;
    const later = await listed(client);
    expect(later).toMatchObject({ workouts: first.workouts, stale: false });
    expect(Date.parse(later.fetchedAt)).toBeGreaterThan(Date.parse(first.fetchedAt));
    expect(await listingCalls()).toBe(calls + 2);
  });

  it('past 6 lists in a minute that ask the service, answers the last list, marked as such, without asking', async () => {
    const { client, userId } = await connectedAthlete(stack);
    await uploadRide(stack, userId);
    const last = await listSixTimes(client);
    const calls = await listingCalls();

    clockAheadMs += 10_000;
    expect(await listed(client)).toEqual({ ...last, stale: true, staleReason: 'too_many_requests' });
    const page = await client.get('/workouts');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/These are your workouts as of [^:]+:\d\d: you have asked for them many times in the last minute/);
    expect(html).toContain('<td data-label="Name">Long ride</td>');
    expect(await listingCalls()).toBe(calls);
  });

  it('past 6 lists in a minute with no list known, answers 429 with Retry-After, without asking', async () => {
    const { client } = await connectedAthlete(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'] });
    for (let list = 0; list < 6; list++) expect((await client.get('/api/workouts')).status).toBe(503);
    const calls = await listingCalls();

    const response = await client.get('/api/workouts');
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({
      error: 'too_many_requests',
      message: expect.stringMatching(/^You have asked for your workouts many times in the last minute; try again in \d+ s\.$/),
    });
    const retryAfterS = Number(response.headers.get('retry-after'));
    expect(retryAfterS).toBeGreaterThanOrEqual(1);
    expect(retryAfterS).toBeLessThanOrEqual(60);
    const page = await client.get('/workouts');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You have asked for your workouts many times in the last minute');
    expect(await listingCalls()).toBe(calls);
  });
});
