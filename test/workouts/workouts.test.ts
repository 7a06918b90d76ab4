import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/provider/service-error.js';
import { listWorkouts } from '../../src/workouts/workouts.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { connectedAthlete } from '../helpers/workouts.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

/** The outcome for a connected user when the listing call fails with `error`. */
async function outcomeWhenListingThrows(error: Error) {
  const { userId } = await connectedAthlete(stack);
  const api = serviceApiWith({ listWorkouts: () => Promise.reject(error) });
  return listWorkouts({ db: stack.db, api, budget: stack.budget, clock: () => new Date() }, userId);
}

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
    expect(outcome).toMatchObject({ ok: false, reason: 'reconnect', message: expect.stringContaining('the connection needs reconnecting') });
  });

  it('lets a programming error through rather than calling it the service’s', async () => {
    await expect(outcomeWhenListingThrows(new TypeError('a bug'))).rejects.toThrow('a bug');
  });
});
