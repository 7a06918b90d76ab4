import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountGoneError } from '../../src/accounts/user.repository.js';
import type { ServiceApi } from '../../src/provider/api.js';
import { createWorkoutReadLimits } from '../../src/workouts/read-limits.js';
import { listWorkouts } from '../../src/workouts/workouts.js';
import { workoutReadSettings } from '../../src/workouts/workouts.settings.js';
import { PASSWORD, sendJson, signedInAgain } from '../helpers/account.js';
import { connect, connectedUser, signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { cellsNaming } from '../helpers/person-traces.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** The last workouts list fetched (last-workout-list.repository.ts), in the account's export and its deletion. */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

async function exportOf(client: CookieClient): Promise<{ lastWorkoutList: unknown }> {
  const response = await client.get('/api/account/export');
  expect(response.status).toBe(200);
  return JSON.parse(await response.text());
}

describe("the account's export", () => {
  it('holds the last workouts list fetched from the service, with when', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await connect(client)).status).toBe(303);
    expect((await exportOf(client)).lastWorkoutList).toBeNull();
    const listed = (await (await client.get('/api/workouts')).json()) as { fetchedAt: string; workouts: unknown[]; notes: string[] };
    expect((await exportOf(client)).lastWorkoutList).toEqual({
      fetchedAt: listed.fetchedAt,
      workouts: listed.workouts,
      notes: listed.notes,
    });
  });
});

describe("the account's deletion", () => {
  it('deletes the last workouts list kept: no row names the person', async () => {
    const { client, userId } = await connectedUser(stack);
    const { email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    const person = { id: userId, email };
    expect((await client.get('/api/workouts')).status).toBe(200);
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^last_workout_lists\.user_id = /)]),
    );

    expect((await sendJson(client, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);

    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
  });

  /** A person connected and signed in twice. */
  async function personOnTwoDevices() {
    await stack.changeSandbox({ autoApprove: 'Dora' });
    const client = stack.browser();
    const email = await signUpNewUser(client);
    expect((await connect(client)).status).toBe(303);
    const phone = await signedInAgain(client, email);
    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    return { id, email, client, phone };
  }

  it('racing a workouts list whose answer came after the account went: the list fails 401, and none is kept', async () => {
    const person = await personOnTwoDevices();
    const api = stack.serviceApi();
    const answeredAfterDeletion: ServiceApi = {
      ...api,
      async getText(userId, path, options) {
        const body = await api.getText(userId, path, options);
        expect((await sendJson(person.phone, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);
        return body;
      },
    };

    const reads = createWorkoutReadLimits({
      redis: stack.redis,
      redisPrefix: stack.config.redis.prefix,
      settings: stack.config.kindSettings.of(workoutReadSettings).workoutReads,
    });
    const listing = listWorkouts(
      { db: stack.db, api: answeredAfterDeletion, budget: stack.budget, reads, clock: () => new Date() },
      person.id,
    );

    await expect(listing).rejects.toBeInstanceOf(AccountGoneError);
    await expect(listing).rejects.toMatchObject({ status: 401 });
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
  });
});
