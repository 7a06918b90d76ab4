import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { commaSeparated, expecting, wholePositive, wholeUpTo } from '../config/value-schemas.js';

const ABSORPTION_TYPES_HINT = 'comma-separated names in capitals, e.g. RAPID,SLOW';

/** The meals a person may log: absorption types, and the bounds of an item, a day and an import (meal.schemas.ts). */
export const mealSettings = settingGroup({
  readBy: 'web',
  settings: {
    ABSORPTION_TYPES: setting({
      schema: commaSeparated(
        z.array(z.string().regex(/^[A-Z_]+$/, expecting(ABSORPTION_TYPES_HINT))).min(1, expecting(ABSORPTION_TYPES_HINT)),
      ),
      default: 'RAPID',
      meaning: "The app's absorption types, comma-separated (the document confirms only `RAPID`).",
    }),
    MEAL_MAX_ITEMS_PER_DAY: setting({
      schema: wholePositive('a number of items, e.g. 100'),
      default: '100',
      meaning: 'Items one local day may hold.',
    }),
    MEAL_NAME_MAX_LENGTH: setting({
      schema: wholePositive('a number of characters, e.g. 120'),
      default: '120',
      meaning: "Characters in an item's name.",
    }),
    MEAL_MAX_GRAMS: setting({
      schema: wholePositive('grams, e.g. 1000'),
      default: '1000',
      meaning: 'Upper bound of carbs, protein and fat of one item.',
    }),
    MEAL_MAX_KCAL: setting({
      schema: wholePositive('kilocalories, e.g. 10000'),
      default: '10000',
      meaning: "Upper bound of an item's kcal.",
    }),
    // Bounded: one import is one transaction holding the user's lock, and one insert of 11 values per item within SQLite's 32,766.
    MEALS_BATCH_MAX: setting({
      schema: wholeUpTo(2000, 'a number of items up to 2000, e.g. 500'),
      default: '500',
      meaning: 'Items one `POST /api/meals/batch` may carry; at most 2000, as one import is one transaction.',
    }),
  },
  read: (values) => ({
    meals: {
      absorptionTypes: values.ABSORPTION_TYPES,
      maxItemsPerDay: values.MEAL_MAX_ITEMS_PER_DAY,
      maxNameLength: values.MEAL_NAME_MAX_LENGTH,
      maxGrams: values.MEAL_MAX_GRAMS,
      maxKcal: values.MEAL_MAX_KCAL,
      batchMax: values.MEALS_BATCH_MAX,
    },
  }),
});
