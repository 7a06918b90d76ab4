import type { NutritionItem } from '../provider/records.js';
import { amountNames } from './amount-declaration.js';
import type { AmountColumns, MealItem } from './meal.table.js';
import { MEAL_AMOUNTS, type AmountName } from './meal.fields.js';

type Declared = typeof MEAL_AMOUNTS;

/** An item's declared amounts: each given is a number, one not given absent. */
export type Amounts = { [Name in AmountName]?: number };

/** A change of them: a number sets one, null removes it, absent leaves it. */
export type AmountChanges = { [Name in AmountName]?: number | null };

const NAMES = amountNames(MEAL_AMOUNTS);
const columnOf = (name: AmountName) => MEAL_AMOUNTS[name].column;

/** The amounts as stored: one not given is null in its column. */
export function amountColumns(amounts: Amounts): AmountColumns {
  return Object.fromEntries(NAMES.map((name) => [columnOf(name), amounts[name] ?? null])) as AmountColumns;
}

/** The columns a change sets: only the amounts it names. */
export function amountColumnChanges(changes: AmountChanges): Partial<AmountColumns> {
  return Object.fromEntries(NAMES.flatMap((name) => (changes[name] === undefined ? [] : [[columnOf(name), changes[name]]])));
}

/** The amounts of a stored item, or of those declared sent as `sent`; one not given is absent, never null. */
export function amountsOf(item: MealItem, sent?: 'record' | 'rawJson'): Amounts {
  const names = NAMES.filter((name) => sent === undefined || MEAL_AMOUNTS[name].sent === sent);
  return Object.fromEntries(names.flatMap((name) => (item[columnOf(name)] === null ? [] : [[name, item[columnOf(name)]]])));
}

/** The amounts declared sent as an item's own field: only fields section 2.4 shows, checked at the declaration. */
type DocumentedAmounts = {
  [Name in AmountName as Declared[Name] extends { sent: 'record' } ? Extract<Name, keyof NutritionItem> : never]?: number;
};

export function documentedAmountsOf(item: MealItem): DocumentedAmounts {
  return amountsOf(item, 'record');
}
