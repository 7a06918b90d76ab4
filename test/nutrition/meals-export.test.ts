import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { addMeal } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

async function exportOf(client: CookieClient): Promise<{ meals: { id: number }[]; syncDays: unknown[] }> {
  const response = await client.get('/api/account/export');
  expect(response.status).toBe(200);
  return JSON.parse(await response.text());
}

describe("the account's export of meals", () => {
  it("holds the person's meal items and their days' sync, and no one else's", async () => {
    const client = stack.browser();
    await signUpNewUser(client, 'Europe/Kyiv');
    const meal = await addMeal(client, { name: 'Borscht', carbs: 20, logged_at: '2026-03-10T13:00:00+02:00' });
    const someoneElse = stack.browser();
    await signUpNewUser(someoneElse);
    await addMeal(someoneElse, { name: 'Somebody elses soup', carbs: 1, logged_at: '2026-03-10T13:00:00+02:00' });

    expect(await exportOf(client)).toMatchObject({
      meals: [meal],
      syncDays: [expect.objectContaining({ kind: 'nutrition', date: '2026-03-10', status: 'pending' })],
    });
  });

  it('holds every row however many there are (read in batches)', async () => {
    const client = stack.browser();
    await signUpNewUser(client, 'UTC');
    const days = Array.from({ length: 12 }, (_, day) => `2026-01-${String(day + 1).padStart(2, '0')}`);
    const items = days.flatMap((date) =>
      Array.from({ length: 100 }, (_, n) => ({
        name: `Item ${n}`,
        carbs: 1,
        logged_at: `${date}T10:${String(n % 60).padStart(2, '0')}:00Z`,
      })),
    );
    for (let start = 0; start < items.length; start += 500) {
      expect((await client.postJson('/api/meals/batch', { items: items.slice(start, start + 500) })).status).toBe(201);
    }
    const exported = await exportOf(client);
    expect(exported.meals).toHaveLength(1200);
    expect(new Set(exported.meals.map((meal) => meal.id)).size).toBe(1200);
    expect(exported.syncDays).toHaveLength(12);
  });
});
