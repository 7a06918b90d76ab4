import { describe, expect, it } from 'vitest';
import { ITEM_AMOUNTS, dayTotals, itemAmountsLine } from '../../src/nutrition/day-totals.js';
import type { MealView } from '../../src/nutrition/meals.js';
import { AMOUNT_NAMES } from './helpers.js';

const meal = (id: number, amounts: Partial<MealView>): MealView => ({
  id,
  name: `Item ${String(id)}`,
  carbs: 0,
  logged_at: '2026-11-20T08:00:00+01:00',
  date: '2026-11-20',
  ...amounts,
});

describe('a day’s totals', () => {
  it('sums the carbs and every declared amount, in the order declared', () => {
    expect(ITEM_AMOUNTS.map((amount) => amount.name)).toEqual(['carbs', ...AMOUNT_NAMES]);
    const everyAmountOnce = Object.fromEntries(AMOUNT_NAMES.map((name) => [name, 10.25]));
    const totals = dayTotals([meal(1, { carbs: 45.5, ...everyAmountOnce }), meal(2, { carbs: 0.1, ...everyAmountOnce })]);
    expect(totals.map((amount) => [amount.name, amount.total])).toEqual([['carbs', 45.6], ...AMOUNT_NAMES.map((name) => [name, 20.5])]);
    expect(totals[0]!.shown).toBe('45.6 g');
  });

  it('counts the items that give an amount, so a total of some items is told as such', () => {
    const [name] = AMOUNT_NAMES;
    const total = dayTotals([meal(1, { [name!]: 12 }), meal(2, {})]).find((amount) => amount.name === name)!;
    expect(total).toMatchObject({ total: 12, counted: 1, items: 2 });
  });

  it('says an amount no item of the day gives is not given, rather than a total of 0', () => {
    const [name] = AMOUNT_NAMES;
    const total = dayTotals([meal(1, { carbs: 30 })]).find((amount) => amount.name === name)!;
    expect(total).toMatchObject({ counted: 0, items: 1, shown: 'not given' });
  });

  it('is zero of every amount for a day without items', () => {
    expect(dayTotals([]).every((amount) => amount.total === 0 && amount.items === 0)).toBe(true);
  });
});

describe('an item’s amounts in one line', () => {
  it('names those it gives, each with its unit', () => {
    expect(itemAmountsLine(meal(1, { carbs: 45.5, kcal: 320 }))).toBe('Carbs 45.5 g · Calories 320 kcal');
  });
});
