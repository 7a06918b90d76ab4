import { declareAmounts } from './amount-declaration.js';

/**
 * The optional amounts of a meal item beyond its carbs, in the order the page shows them
 * (amount-declaration.ts says what each part does). A new one is an entry here and a migration
 * adding its column to meal_items; the API, the page, the store and the record sent take it from
 * here. Section 2.4 shows none of these of an item, so each is sent inside rawJson.
 */
export const MEAL_AMOUNTS = declareAmounts({
  protein: {
    column: 'protein',
    label: 'Protein (g)',
    words: 'Protein',
    unit: 'grams',
    symbol: 'g',
    example: '12.5',
    max: 'maxGrams',
    sent: 'rawJson',
  },
  fat: { column: 'fat', label: 'Fat (g)', words: 'Fat', unit: 'grams', symbol: 'g', example: '12.5', max: 'maxGrams', sent: 'rawJson' },
  kcal: {
    column: 'kcal',
    label: 'kcal',
    words: 'Calories',
    unit: 'kilocalories',
    symbol: 'kcal',
    example: '250',
    max: 'maxKcal',
    sent: 'rawJson',
  },
});

export type AmountName = keyof typeof MEAL_AMOUNTS;
