import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MealView } from '../../src/nutrition/meals.js';
import { signUpNewUser } from '../helpers/flows.js';
import { addMeal, storedMealIds } from './helpers.js';
import { bodyOf, type ApiError, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const BATCH_MAX = 500;
const DAY_MAX = 100;
const meal = { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00' };

interface Imported {
  items: MealView[];
  days: string[];
}

async function newUser(timezone = 'Europe/Berlin'): Promise<{ client: CookieClient; email: string; userId: number }> {
  const client = stack.browser();
  const email = await signUpNewUser(client, timezone);
  const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { client, email, userId };
}

function importMeals(client: CookieClient, items: unknown[]): Promise<Response> {
  return client.postJson('/api/meals/batch', { items });
}

/** `count` items spread over consecutive days of March 2026, `perDay` a day, from the 1st. */
function itemsOverDays(count: number, perDay: number): (typeof meal)[] {
  return Array.from({ length: count }, (_, index) => {
    const day = String(1 + Math.floor(index / perDay)).padStart(2, '0');
    return { ...meal, name: `Item ${index}`, logged_at: `2026-03-${day}T12:00:00+01:00` };
  });
}

async function outboxVersions(userId: number): Promise<Record<string, number>> {
  const rows = await stack.db.selectFrom('outbox').select(['subject', 'version']).where('user_id', '=', userId).execute();
  return Object.fromEntries(rows.map((row) => [row.subject, row.version]));
}

/** The person's days by lane (a change of now, or history), and whether their history turn is queued. */
async function lanesOf(userId: number) {
  const rows = await stack.db
    .selectFrom('outbox')
    .select(['subject', 'fresh_at'])
    .where('user_id', '=', userId)
    .orderBy('subject')
    .execute();
  const historyTurn = await stack.syncQueues.history.getDeduplicationJobId(`history-${userId}`);
  return {
    fresh: rows.filter((row) => row.fresh_at !== null).map((row) => row.subject),
    history: rows.filter((row) => row.fresh_at === null).map((row) => row.subject),
    historyTurnQueued: historyTurn !== null,
  };
}

describe('POST /api/meals/batch', () => {
  it('files each item under its local day (its own offset, or the user’s zone), and answers 201 with the items and the days', async () => {
    const { client } = await newUser('America/St_Johns');
    const response = await importMeals(client, [
      { ...meal, name: 'late snack', logged_at: '2026-03-10T01:00:00Z' },
      { ...meal, name: 'lunch', logged_at: '2026-03-10T12:00', protein: 20, absorptionType: 'RAPID' },
      { ...meal, name: 'in Tokyo', logged_at: '2026-03-11T08:00:00+09:00' },
      { ...meal, name: 'dinner', logged_at: '2026-03-10T23:00:00Z' },
      { ...meal, name: 'breakfast', logged_at: '2026-03-12T07:30:00-02:30', kcal: 350 },
    ]);
    expect(response.status).toBe(201);
    const imported = await bodyOf<Imported>(response);
    expect(imported.days).toEqual(['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12']);
    expect(imported.items).toEqual([
      { id: expect.any(Number), name: 'late snack', carbs: 60, logged_at: '2026-03-09T22:30:00-02:30', date: '2026-03-09' },
      {
        id: expect.any(Number),
        name: 'lunch',
        carbs: 60,
        protein: 20,
        absorptionType: 'RAPID',
        logged_at: '2026-03-10T12:00:00-02:30',
        date: '2026-03-10',
      },
      { id: expect.any(Number), name: 'in Tokyo', carbs: 60, logged_at: '2026-03-11T08:00:00+09:00', date: '2026-03-11' },
      { id: expect.any(Number), name: 'dinner', carbs: 60, logged_at: '2026-03-10T20:30:00-02:30', date: '2026-03-10' },
      { id: expect.any(Number), name: 'breakfast', carbs: 60, kcal: 350, logged_at: '2026-03-12T07:30:00-02:30', date: '2026-03-12' },
    ]);
    const listed = await bodyOf<{ meals: MealView[] }>(await client.get('/api/meals?date=2026-03-10'));
    expect(listed.meals).toEqual([imported.items[1], imported.items[3]]);
  });

  it('marks each touched day dirty once (one new version a day) as history, and queues the person’s history turn', async () => {
    const { client, userId } = await newUser();
    await addMeal(client, { ...meal, logged_at: '2026-03-01T08:00:00+01:00' });
    expect(await outboxVersions(userId)).toEqual({ '2026-03-01': 1 });

    const response = await importMeals(client, itemsOverDays(60, 20));
    expect(response.status).toBe(201);
    expect((await bodyOf<Imported>(response)).days).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(await outboxVersions(userId)).toEqual({ '2026-03-01': 2, '2026-03-02': 1, '2026-03-03': 1 });
    // The day with a change of now still waiting keeps its lane: its whole record goes out promptly.
    expect(await lanesOf(userId)).toEqual({ fresh: ['2026-03-01'], history: ['2026-03-02', '2026-03-03'], historyTurnQueued: true });
  });

  it("queues the first turn of a history that begins ahead of the turns waiting; a later import leaves the person's turn where it is", async () => {
    const { client, userId } = await newUser();
    const historyTurn = async () => {
      const jobId = await stack.syncQueues.history.getDeduplicationJobId(`history-${userId}`);
      return jobId === null ? undefined : await stack.syncQueues.history.getJob(jobId);
    };
    expect((await importMeals(client, itemsOverDays(2, 1))).status).toBe(201);
    const first = await historyTurn();
    expect(first?.opts.lifo).toBe(true);
    expect((await importMeals(client, itemsOverDays(4, 1))).status).toBe(201);
    expect((await historyTurn())?.id).toBe(first?.id);
  });

  it(`takes ${BATCH_MAX} items with the longest names in one request`, async () => {
    const { client, email } = await newUser();
    const items = itemsOverDays(BATCH_MAX, DAY_MAX).map((item, index) => ({ ...item, name: `${index} `.padEnd(120, 'é') }));
    const response = await importMeals(client, items);
    expect(response.status).toBe(201);
    expect((await bodyOf<Imported>(response)).items.map((item) => item.name)).toEqual(items.map((item) => item.name));
    expect(await storedMealIds(stack, email)).toHaveLength(BATCH_MAX);
  });

  it('refuses the whole import when one item is bad, naming its index and field with the single-item message', async () => {
    const { client, email, userId } = await newUser();
    const items = itemsOverDays(200, 50);
    items[137] = { ...items[137]!, carbs: -1 };
    const response = await importMeals(client, items);
    expect(response.status).toBe(400);
    const single = await bodyOf<ApiError>(await client.postJson('/api/meals', { ...meal, carbs: -1 }));
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'invalid_request',
      fields: ['items.137.carbs'],
      message: `items.137.${single.message}`,
    });
    expect(await storedMealIds(stack, email)).toEqual([]);
    expect(await outboxVersions(userId)).toEqual({});
    expect(await lanesOf(userId)).toEqual({ fresh: [], history: [], historyTurnQueued: false });
  });

  it('refuses the whole import when a time cannot be placed in the user’s zone, naming its index', async () => {
    const { client, email } = await newUser('Europe/Berlin');
    const response = await importMeals(client, [meal, { ...meal, logged_at: '2100-12-31T23:30:00Z' }]);
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toMatchObject({ fields: ['items.1.logged_at'] });
    expect(await storedMealIds(stack, email)).toEqual([]);
  });

  it.each([
    [[], 'items must hold at least one item'],
    [itemsOverDays(BATCH_MAX + 1, DAY_MAX), `items must hold at most ${BATCH_MAX} items`],
  ])('answers 400 naming the limit for %#: no items, or more than the most', async (items, message) => {
    const { client, email } = await newUser();
    const response = await importMeals(client, items);
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual({ error: 'invalid_request', fields: ['items'], message });
    expect(await storedMealIds(stack, email)).toEqual([]);
  });

  it('answers 400 for a body without a list of items, or with fields of its own', async () => {
    const { client } = await newUser();
    expect((await client.postJson('/api/meals/batch', meal)).status).toBe(400);
    const extra = await client.postJson('/api/meals/batch', { items: [meal], user: 1 });
    expect(await bodyOf<ApiError>(extra)).toMatchObject({ fields: ['user'] });
  });

  it('answers 409 naming the day when the import would overfill it, and stores nothing', async () => {
    const { client, email, userId } = await newUser();
    const existing = await addMeal(client, { ...meal, logged_at: '2026-03-02T08:00:00+01:00' });
    const response = await importMeals(client, [...itemsOverDays(DAY_MAX, DAY_MAX), ...itemsOverDays(2 * DAY_MAX, DAY_MAX).slice(DAY_MAX)]);
    expect(response.status).toBe(409);
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'day_full',
      message: `2026-03-02 would hold ${DAY_MAX + 1} items with this import, more than the ${DAY_MAX} a day can hold`,
    });
    expect(await storedMealIds(stack, email)).toEqual([existing.id]);
    expect(await outboxVersions(userId)).toEqual({ '2026-03-02': 1 });
  });

  it('stores the items for the signed-in user only, and touches no one else’s days', async () => {
    const owner = await newUser();
    const other = await newUser();
    const owned = await addMeal(owner.client, meal);
    const refused = await importMeals(other.client, [{ ...meal, user_id: owner.userId }]);
    expect(await bodyOf<ApiError>(refused)).toMatchObject({ fields: ['items.0.user_id'] });

    const response = await importMeals(other.client, [meal]);
    expect(response.status).toBe(201);
    const [imported] = (await bodyOf<Imported>(response)).items;
    expect(await storedMealIds(stack, owner.email)).toEqual([owned.id]);
    expect(await storedMealIds(stack, other.email)).toEqual([imported!.id]);
    expect(await outboxVersions(owner.userId)).toEqual({ '2026-03-10': 1 });
    expect(await lanesOf(owner.userId)).toEqual({ fresh: ['2026-03-10'], history: [], historyTurnQueued: false });
  });

  it('answers 401 when signed out', async () => {
    expect((await importMeals(stack.browser(), [meal])).status).toBe(401);
  });
});
