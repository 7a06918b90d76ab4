import { fieldNames } from '../fields/field-values.js';
import { MEAL_AMOUNTS } from './meal.fields.js';
import type { MealView } from './meals.js';

/** An amount of an item as the meals page sums and shows it: carbs (every item has them), then each declared amount. */
interface ItemAmount {
  name: string;
  words: string;
  symbol: string;
}

/** Carbs first, as section 2.4 requires them of every item, then the declared amounts in their order (meal.fields.ts). */
export const ITEM_AMOUNTS: readonly ItemAmount[] = [
  { name: 'carbs', words: 'Carbs', symbol: 'g' },
  ...fieldNames(MEAL_AMOUNTS).map((name) => {
    const { words, symbol, unit } = MEAL_AMOUNTS[name];
    return { name, words, symbol: symbol ?? unit };
  }),
];

/** One amount's total over a day: of the items that give it, `counted` of `items`. */
export interface AmountTotal extends ItemAmount {
  total: number;
  counted: number;
  items: number;
  /** "45.5 g"; "not given" when the day has items and none gives it (a total of 0 would say they had none). */
  shown: string;
}

/** An amount as the page writes it: to a tenth at most, with its unit's symbol ("45.5 g", "320 kcal"). */
export function amountWords(value: number, symbol: string): string {
  return `${String(Math.round(value * 10) / 10)} ${symbol}`;
}

/** The day's total of every amount, over the items that give it. */
export function dayTotals(meals: readonly MealView[]): AmountTotal[] {
  return ITEM_AMOUNTS.map((amount) => {
    const given = meals.flatMap((meal) => amountOf(meal, amount.name) ?? []);
    const total = given.reduce((sum, value) => sum + value, 0);
    const shown = given.length === 0 && meals.length > 0 ? 'not given' : amountWords(total, amount.symbol);
    return { ...amount, total, counted: given.length, items: meals.length, shown };
  });
}

/** An item's amounts in one line, those it gives only: "Carbs 45.5 g · Calories 320 kcal". */
export function itemAmountsLine(meal: MealView): string {
  return ITEM_AMOUNTS.flatMap((amount) => {
    const value = amountOf(meal, amount.name);
    return value === undefined ? [] : [`${amount.words} ${amountWords(value, amount.symbol)}`];
  }).join(' · ');
}

function amountOf(meal: MealView, name: string): number | undefined {
  const values: Record<string, unknown> = meal;
  const value = values[name];
  return typeof value === 'number' ? value : undefined;
}
