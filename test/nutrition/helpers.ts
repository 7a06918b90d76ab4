import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { fieldNames } from '../../src/fields/field-values.js';
import { MEAL_AMOUNTS, type Amounts } from '../../src/nutrition/meal.fields.js';
import type { MealLimits } from '../../src/nutrition/meal.schemas.js';
import type { MealView } from '../../src/nutrition/meals.js';
import { bodyOf, type CookieClient } from '../helpers/http-client.js';
import type { Stack } from '../helpers/stack.js';

/** The names of the declared amounts of a meal item (src/nutrition/meal.fields.ts), in their order. */
export const AMOUNT_NAMES = fieldNames(MEAL_AMOUNTS);

/** Every declared amount given, each a different value within its bounds (its most a configured limit where declared so). */
export function everyAmount(limits: MealLimits): Amounts {
  return Object.fromEntries(
    AMOUNT_NAMES.map((name, index) => {
      const { min, max, integer } = MEAL_AMOUNTS[name];
      const value = min + ((typeof max === 'number' ? max : limits[max]) - min) / (index + 2);
      return [name, integer ? Math.floor(value) : Math.round(value * 10) / 10];
    }),
  );
}

/** Adds a meal item through the JSON API, as the partner's app would. */
export async function addMeal(client: CookieClient, body: Record<string, unknown>): Promise<MealView> {
  const response = await client.postJson('/api/meals', body);
  expect(response.status).toBe(201);
  return bodyOf<MealView>(response);
}

export async function changeMeal(client: CookieClient, id: number, changes: Record<string, unknown>): Promise<MealView> {
  const response = await client.request(`/api/meals/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
  expect(response.status).toBe(200);
  return bodyOf<MealView>(response);
}

export async function deleteMeal(client: CookieClient, id: number): Promise<void> {
  expect((await client.request(`/api/meals/${id}`, { method: 'DELETE' })).status).toBe(204);
}

/** The ids of every meal item stored for the person with this email, read from the store itself. */
export async function storedMealIds(stack: Stack, email: string): Promise<number[]> {
  const rows = await stack.db
    .selectFrom('meal_items')
    .innerJoin('users', 'users.id', 'meal_items.user_id')
    .select('meal_items.id')
    .where('users.email', '=', email)
    .execute();
  return rows.map((row) => row.id);
}

/** A meal item's form on the meals page, opened from its line in the day's list as a person taps it (a `<details>`). */
export async function openMealItem(page: Page, label: string | RegExp): Promise<Locator> {
  const form = page.getByRole('form', { name: label, includeHidden: true });
  const line = page.locator('details.meal-item').filter({ has: form });
  if ((await line.getAttribute('open')) === null) await line.locator('summary').first().click();
  return page.getByRole('form', { name: label });
}
