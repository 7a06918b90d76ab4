import type { PartOf } from '../config/setting.js';
import { numericFields, type FieldSet, type ValuesOf } from '../fields/numeric-field.js';
import type { NutritionItem } from './nutrition.service.js';
import type { mealSettings } from './nutrition.settings.js';

/** What section 2.4 shows of an item, which an amount declared `sent: 'record'` must be. */
export type ItemAsShown = { record: NutritionItem; integers: never; section: 'section 2.4'; field: 'this field of an item' };

/** The configured limits an amount's most may be (MEAL_MAX_GRAMS, MEAL_MAX_KCAL). */
type AmountLimit = keyof Pick<PartOf<typeof mealSettings>['meals'], 'maxGrams' | 'maxKcal'>;

/** Declares amounts of a meal item (src/fields/numeric-field.ts says what each part does), checked against section 2.4. */
export const declareAmounts = numericFields<ItemAsShown, AmountLimit>();

/** An amount in grams, as most are: from 0 to MEAL_MAX_GRAMS, sent inside rawJson. */
const IN_GRAMS = { unit: 'grams', symbol: 'g', example: '12.5', min: 0, max: 'maxGrams', integer: false, sent: 'rawJson' } as const;

/**
 * The optional amounts of a meal item beyond its carbs, in the order the page shows them. A new
 * one is an entry here and a migration adding its column to meal_items; the API, the page, the
 * store and the record sent take it from here. Section 2.4 shows none of these of an item, so each
 * is sent inside rawJson. An amount is a decimal number from 0 to its most.
 */
export const MEAL_AMOUNTS = declareAmounts({
  protein: { column: 'protein', label: 'Protein (g)', words: 'Protein', ...IN_GRAMS },
  fat: { column: 'fat', label: 'Fat (g)', words: 'Fat', ...IN_GRAMS },
  kcal: {
    column: 'kcal',
    label: 'kcal',
    words: 'Calories',
    unit: 'kilocalories',
    symbol: 'kcal',
    example: '250',
    min: 0,
    max: 'maxKcal',
    integer: false,
    sent: 'rawJson',
  },
});

/** An item's declared amounts: each given is a number, one not given absent. */
export type Amounts = ValuesOf<typeof MEAL_AMOUNTS>;

export const MEAL_AMOUNT_FIELDS: FieldSet<AmountLimit> = {
  title: 'Meal item amounts',
  fields: MEAL_AMOUNTS,
  limitVariables: { maxGrams: 'MEAL_MAX_GRAMS', maxKcal: 'MEAL_MAX_KCAL' },
};
