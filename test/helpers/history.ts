import { expect } from 'vitest';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { connect, signUpNewUser } from './flows.js';
import type { CookieClient } from './http-client.js';
import { serviceDays, writeDay } from './kinds.js';
import type { Stack } from './stack.js';

/** A person connected as `athlete` at the sandbox, with their email (for signing in elsewhere). */
export interface Person {
  athlete: string;
  email: string;
  client: CookieClient;
}

/**
 * A person signed up and connected as `athlete`. With `historyDays`, they first wrote one change of
 * the test kind to each of that many days before today, while not yet connected: at Connect what
 * they logged becomes their history, sent in their turns, whichever kind it is.
 */
export async function connectedPerson(stack: Stack, athlete: string, historyDays = 0): Promise<Person> {
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  const email = await signUpNewUser(client);
  await writeHistory(client, historyDays);
  expect((await connect(client)).status).toBe(303);
  return { athlete, email, client };
}

async function writeHistory(client: CookieClient, days: number): Promise<void> {
  const today = localToday(new Date(), 'Europe/Berlin');
  for (let index = 0; index < days; index++) await writeDay(client, addDays(today, -1 - index));
}

/** When the sandbox first received each of the athlete's days of the test kind, in order. */
export async function arrivalsOf(stack: Stack, athlete: string): Promise<number[]> {
  return (await serviceDays(stack, athlete)).map((day) => day.createdAt).sort((a, b) => a - b);
}

/**
 * People with a history under way, made straight in the store, one second apart in the rotation
 * (the first stands at its head); their ids in that order.
 */
export async function peopleWithHistory(stack: Stack, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let person = 0; person < count; person++) {
    const at = new Date(Date.UTC(2026, 10, 20, 10, 0, person)).toISOString();
    const { id } = await stack.db
      .insertInto('users')
      .values({ email: `rotation${person}@example.com`, password_hash: 'x', timezone: 'UTC', created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await stack.db.insertInto('histories').values({ user_id: id, started_at: at, total: 1, last_turn_at: at }).execute();
    ids.push(id);
  }
  return ids;
}
