import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { LISTING_AS_DEFAULT, connectedAthlete, listingRequests, uploadRide, type WorkoutsListing } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  // Every list here asks the service: the recent list and the person's rate have tests of their own (workout-reads.test.ts).
  stack = await startStack({ env: { WORKOUTS_CACHE_S: '0', WORKOUTS_READS_PER_PERSON_PER_MINUTE: '600' } });
});
afterEach(async () => {
  await stack.changeSandbox(LISTING_AS_DEFAULT);
});
afterAll(async () => {
  await stack.close();
});

const THE_RIDE = { name: 'Long ride', start: '2026-03-01T06:30:00.000Z', type: 'cycling', durationS: 5400, distanceM: 45_000 };

/** A connected person whose ride is at the service, and who has listed it once, fresh. */
async function personWhoListedOnce(): Promise<{ client: CookieClient; userId: number; first: WorkoutsListing }> {
  const { client, userId } = await connectedAthlete(stack);
  await uploadRide(stack, userId);
  const response = await client.get('/api/workouts');
  expect(response.status).toBe(200);
  const first = (await response.json()) as WorkoutsListing;
  expect(first).toMatchObject({ workouts: [THE_RIDE], stale: false });
  return { client, userId, first };
}

/** The last list, answered for a service that does not answer. */
const theRideAsOf = (first: WorkoutsListing) => ({
  workouts: [THE_RIDE],
  notes: [],
  stale: true,
  staleReason: 'service_unavailable',
  fetchedAt: first.fetchedAt,
});

const serviceDown = () => stack.changeSandbox({ faultRate: 1, faultKinds: ['503'] });

describe('reading workouts through a blip', () => {
  it('answers 10 of 10 lists 200, fresh or marked stale, while the service fails 30% of data calls', { timeout: 120_000 }, async () => {
    const { client } = await personWhoListedOnce();
    const faultsBefore = (await stack.sandboxState()).counters.faults as Record<string, number>;
    const requestsBefore = await listingRequests(stack);
    // Every kind of fault, spread evenly: 500, 503, 429 (Retry-After 1 s), a stall, a dropped connection.
    await stack.changeSandbox({ faultRate: 0.3 });

    const answers: Array<{ status: number; listing: WorkoutsListing }> = [];
    for (let list = 0; list < 10; list++) {
      const response = await client.get('/api/workouts');
      answers.push({ status: response.status, listing: (await response.json()) as WorkoutsListing });
    }

    expect(answers.map(({ status }) => status)).toEqual(Array(10).fill(200));
    for (const { listing } of answers) expect(listing.workouts).toEqual([THE_RIDE]);
    const faultsAfter = (await stack.sandboxState()).counters.faults as Record<string, number>;
    const faultsMet = Object.keys(faultsAfter).reduce((sum, kind) => sum + faultsAfter[kind]! - (faultsBefore[kind] ?? 0), 0);
    expect(faultsMet).toBeGreaterThan(0);
    // The faults met were tried again: more requests reached the service than lists were asked for.
    const requests = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);
    expect(requests(await listingRequests(stack)) - requests(requestsBefore)).toBeGreaterThan(10);
  });

  it('answers the last list fetched, marked stale with when it was fetched, while the service does not answer', async () => {
    const { client, first } = await personWhoListedOnce();
    await serviceDown();
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(theRideAsOf(first));
  });

  it('answers the last list, marked stale, within about 3 s while a slow service refreshes the token, and the next list uses the new token', async () => {
    const { client, userId, first } = await personWhoListedOnce();
    await stack.db
      .updateTable('connections')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', userId)
      .execute();
    const tokenDelayMs = 6000;
    await stack.changeSandbox({ tokenDelayMs });

    const asked = performance.now();
    const response = await client.get('/api/workouts');
    const waitedMs = performance.now() - asked;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(theRideAsOf(first));
    expect(waitedMs).toBeLessThan(tokenDelayMs);

    const refreshes = (await stack.sandboxState()).counters.refreshRequests;
    await eventually(
      'a fresh list, once the refresh is done',
      async () => {
        const listing = (await (await client.get('/api/workouts')).json()) as WorkoutsListing;
        return listing.stale ? undefined : listing;
      },
      20_000,
    );
    expect((await stack.sandboxState()).counters.refreshRequests).toBe(refreshes);
    const connection = await stack.db.selectFrom('connections').select('status').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(connection.status).toBe('connected');
  }, 30_000);

  it('answers 503 with a plain message when the service is down and no list of the person is known, after a few tries', async () => {
    const { client } = await connectedAthlete(stack);
    await serviceDown();
    const before = (await listingRequests(stack))['503'] ?? 0;
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: 'service_unavailable',
      message: 'The Athlete Data Service is unavailable right now; try again in a moment.',
    });
    // Four tries (READ_RETRY_POLICY), their backoffs well within the deadline.
    expect((await listingRequests(stack))['503']! - before).toBe(4);
  });

  it('does not answer a list fetched under an earlier grant: after a Reconnect, it may be another account’s', async () => {
    const { client } = await personWhoListedOnce();
    await stack.changeSandbox({ autoApprove: `athlete-${randomUUID()}` });
    expect((await connect(client)).status).toBe(303);
    await serviceDown();
    expect((await client.get('/api/workouts')).status).toBe(503);
  });

  it('shows the last list on the Workouts page, as of when it was fetched in the person’s zone', async () => {
    const { client, first } = await personWhoListedOnce();
    await serviceDown();
    const response = await client.get('/workouts');
    expect(response.status).toBe(200);
    const page = await response.text();
    // The person's zone is Europe/Berlin; the list was fetched moments ago, today.
    const asOf = DateTime.fromISO(first.fetchedAt).setZone('Europe/Berlin').toFormat('HH:mm');
    expect(page).toContain(`These are your workouts as of ${asOf}: the Athlete Data Service is not answering right now.`);
    expect(page).toContain('<td data-label="Name">Long ride</td>');
  });

  it('passes on a Retry-After too long to wait, pausing every request of the budget for it, after one try', async () => {
    const { client, userId } = await connectedAthlete(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['429'], retryAfterS: 7 });
    const before = (await listingRequests(stack))['429'] ?? 0;
    const response = await client.get('/api/workouts');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
    expect((await listingRequests(stack))['429']! - before).toBe(1);
    // Everyone's requests wait, the workers' too: no slot within the next 3 s, for anyone.
    expect(await stack.budget.takeWithin('history', userId + 1, 3000)).toBeUndefined();
  });
});
