import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findUserById } from '../../src/accounts/user.repository.js';
import { total, writeConcurrently, type WriterReport } from '../helpers/concurrent-writes.js';
import { useDatabaseWithOnePerson } from '../helpers/database.js';
import { mealsWithLimit } from './fixtures/meals-with-limit.js';

/**
 * Meals added and moved by several processes at once on the same day: its limit of items, checked
 * before each write, must hold on Postgres, where transactions run side by side.
 */

const WRITER = fileURLToPath(new URL('./fixtures/concurrent-meal-writer.ts', import.meta.url));
const PROCESSES = 4;
const DATE = '2026-04-10';

const person = useDatabaseWithOnePerson();

/** Starts one meal writer per entry of `envs`, all at once, for the person. */
function writeMealsConcurrently(envs: Array<Record<string, string>>): Promise<WriterReport[]> {
  const { database, userId } = person();
  return writeConcurrently(WRITER, database, { USER_ID: String(userId) }, envs);
}

async function itemsOn(date: string): Promise<number> {
  const { db, userId } = person();
  return (await db.selectFrom('meal_items').select('id').where('user_id', '=', userId).where('local_date', '=', date).execute()).length;
}

async function versionOf(date: string): Promise<number | undefined> {
  const { db, userId } = person();
  const row = await db.selectFrom('outbox').select('version').where('user_id', '=', userId).where('subject', '=', date).executeTakeFirst();
  return row?.version;
}

describe('several processes writing meals at once', () => {
  it('adding meals fills a day exactly to its limit, and each added item bumps the day’s version once', async () => {
    const limit = 60;
    const reports = await writeMealsConcurrently(
      Array.from({ length: PROCESSES }, () => ({ TASK: 'add', DATE, ROUNDS: '25', MEAL_MAX_ITEMS_PER_DAY: String(limit) })),
    );

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    expect(total(reports, 'landed')).toBe(limit);
    expect(total(reports, 'refused')).toBe(PROCESSES * 25 - limit);
    expect(await itemsOn(DATE)).toBe(limit);
    expect(await versionOf(DATE)).toBe(limit);
  }, 60_000);

  it('moving meals to a day fills it exactly to its limit, and bumps the versions of both days once per move', async () => {
    const limit = 60;
    const { db, userId } = person();
    const user = (await findUserById(db, userId))!;
    const meals = mealsWithLimit(db, limit);
    const add = async (date: string) => {
      const outcome = await meals.add(user, { name: 'Rice', carbs: 40, logged_at: `${date}T12:00:00+00:00` });
      if (!outcome.ok) throw new Error(`could not add a meal on ${date}`);
      return outcome.meal.id;
    };
    for (let i = 0; i < 40; i++) await add(DATE);
    // Each process moves 10 meals of its own day.
    const sourceDays = Array.from({ length: PROCESSES }, (_, i) => `2026-05-0${i + 1}`);
    const idsByDay = [];
    for (const day of sourceDays) {
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push(await add(day));
      idsByDay.push(ids);
    }

    const reports = await writeMealsConcurrently(
      idsByDay.map((ids) => ({ TASK: 'move', DATE, ITEM_IDS: ids.join(','), MEAL_MAX_ITEMS_PER_DAY: String(limit) })),
    );

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    expect(total(reports, 'landed')).toBe(limit - 40);
    expect(await itemsOn(DATE)).toBe(limit);
    expect(await versionOf(DATE)).toBe(limit);
    for (const [i, day] of sourceDays.entries()) {
      expect(await versionOf(day)).toBe(10 + reports[i]!.landed);
      expect(await itemsOn(day)).toBe(10 - reports[i]!.landed);
    }
  }, 60_000);
});
