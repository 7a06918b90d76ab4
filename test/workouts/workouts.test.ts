import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/provider/service-error.js';
import { LAST_WORKOUT_LIST_MAX_BYTES, keepLastWorkoutList, lastWorkoutList } from '../../src/workouts/last-workout-list.repository.js';
import { createWorkoutReadLimits, type WorkoutReadLimits } from '../../src/workouts/read-limits.js';
import { listWorkouts } from '../../src/workouts/workouts.js';
import type { ServiceApi } from '../../src/provider/api.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { connectedAthlete } from './helpers.js';

let stack: Stack;
/** Every list here asks the service: the recent list and the person's rate have tests of their own (workout-reads.test.ts). */
let everyListAsks: WorkoutReadLimits;

beforeAll(async () => {
  stack = await startStack();
  everyListAsks = createWorkoutReadLimits({
    redis: stack.redis,
    redisPrefix: stack.config.redis.prefix,
    settings: { cacheMs: 0, perPersonPerMinute: 600 },
  });
});
afterAll(async () => {
  await stack.close();
});

const listingOf = (api: ServiceApi, userId: number) =>
  listWorkouts({ db: stack.db, api, budget: stack.budget, reads: everyListAsks, clock: () => new Date() }, userId);

/** The outcome for a connected user when the listing call fails with `error`. */
async function outcomeWhenListingThrows(error: Error) {
  const { userId } = await connectedAthlete(stack);
  return listingOf(serviceApiWith({ getText: () => Promise.reject(error) }), userId);
}

const serviceDown = serviceApiWith({
  getText: () => Promise.reject(new ServiceError('retryable', 'HTTP 503: temporarily_unavailable')),
});

describe('listing a person’s workouts', () => {
  it('passes on the service’s refusal in its words', async () => {
    const outcome = await outcomeWhenListingThrows(new ServiceError('permanent', 'HTTP 400: invalid_request: unknown parameter'));
    expect(outcome).toEqual({
      ok: false,
      reason: 'refused',
      message: 'The Athlete Data Service refused: HTTP 400: invalid_request: unknown parameter',
    });
  });

  it('asks for a reconnect when the grant is gone', async () => {
    const outcome = await outcomeWhenListingThrows(new ServiceError('needs-reconnect', 'the connection needs reconnecting'));
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'reconnect',
      message: expect.stringContaining('the connection needs reconnecting'),
    });
  });

  it('lets a programming error through rather than calling it the service’s', async () => {
    await expect(outcomeWhenListingThrows(new TypeError('a bug'))).rejects.toThrow('a bug');
  });

  it('tries again after a failure that may pass, and answers the list fresh', async () => {
    const { userId } = await connectedAthlete(stack);
    let calls = 0;
    const api = serviceApiWith({
      getText: async () => {
        calls += 1;
        if (calls === 1)
          throw new ServiceError('retryable', 'no answer from the Athlete Data Service (socket hang up)', { unanswered: true });
        return JSON.stringify({ workouts: [{ name: 'Tempo run' }] });
      },
    });
    expect(await listingOf(api, userId)).toMatchObject({ ok: true, stale: false, workouts: [{ name: 'Tempo run' }] });
    expect(calls).toBe(2);
  });

  it('keeps no list larger than 128 KiB: the one kept before it stays, and with none before, no list is known', async () => {
    const { userId } = await connectedAthlete(stack);
    const workouts = Array.from({ length: 3000 }, (_, index) => ({ name: `Interval session number ${index} with a long name` }));
    expect(JSON.stringify({ workouts, notes: [] }).length).toBeGreaterThan(LAST_WORKOUT_LIST_MAX_BYTES);
    const large = serviceApiWith({ getText: async () => JSON.stringify({ workouts }) });
    expect(await listingOf(large, userId)).toMatchObject({ ok: true, stale: false });
    expect(await listingOf(serviceDown, userId)).toMatchObject({ ok: false, reason: 'unavailable' });

    const small = await listingOf(serviceApiWith({ getText: async () => JSON.stringify([{ name: 'Easy spin' }]) }), userId);
    await listingOf(large, userId);
    expect(await listingOf(serviceDown, userId)).toEqual({ ...small, stale: true, staleReason: 'no-answer' });
  });

  it('keeps the later of two lists fetched, whichever finishes last', async () => {
    const { userId } = await connectedAthlete(stack);
    const { grantId } = (await stack.storedGrant(userId))!;
    const later = { fetchedAt: new Date('2026-11-25T10:42:00Z'), workouts: [{ name: 'Later' }], notes: [] };
    expect(await keepLastWorkoutList(stack.db, userId, grantId, later)).toBe(true);
    await keepLastWorkoutList(stack.db, userId, grantId, {
      fetchedAt: new Date('2026-11-25T10:41:00Z'),
      workouts: [{ name: 'Earlier' }],
      notes: [],
    });
    expect(await lastWorkoutList(stack.db, userId, grantId)).toEqual(later);
    expect(await listingOf(serviceDown, userId)).toEqual({ ok: true, stale: true, staleReason: 'no-answer', ...later });
  });
});
