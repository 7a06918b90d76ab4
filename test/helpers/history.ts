import { expect } from 'vitest';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { connect, signUpNewUser } from './flows.js';
import type { CookieClient } from './http-client.js';
import type { Stack } from './stack.js';

/** A person signed up and connected as `athlete` at the sandbox, with their email (for signing in elsewhere). */
export interface Person {
  athlete: string;
  email: string;
  client: CookieClient;
}

export async function connectedPerson(stack: Stack, athlete: string): Promise<Person> {
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  const email = await signUpNewUser(client);
  expect((await connect(client)).status).toBe(303);
  return { athlete, email, client };
}

/** One item on each of `days` days before today, in one import: history, sent in the person's turns. */
export async function importHistory(person: Person, days: number): Promise<void> {
  const today = localToday(new Date(), 'Europe/Berlin');
  const items = Array.from({ length: days }, (_, index) => ({
    name: `Day ${index}`,
    carbs: 40,
    logged_at: `${addDays(today, -1 - index)}T12:00:00`,
  }));
  expect((await person.client.postJson('/api/meals/batch', { items })).status).toBe(201);
}

/** When the sandbox first received each of the athlete's nutrition days, in order. */
export async function arrivalsOf(stack: Stack, athlete: string): Promise<number[]> {
  const { athletes } = await stack.sandboxState();
  return Object.values(athletes[athlete]?.nutrition ?? {})
    .map((day) => Date.parse((day as unknown as { createdAt: string }).createdAt))
    .sort((a, b) => a - b);
}
