import { z } from 'zod';
import type { PartOf } from '../config/setting.js';
import { MAX_ROW_ID } from '../db/row-id.js';
import { fieldSchemas, numberSchema } from '../fields/field-schema.js';
import type { Bounds } from '../fields/numeric-field.js';
import { plainTextSchema } from '../text/plain-text.js';
import { loggedAtInputSchema } from './local-date.js';
import { MEAL_AMOUNTS } from './meal.fields.js';
import type { mealSettings } from './nutrition.settings.js';

export type MealLimits = PartOf<typeof mealSettings>['meals'];

/** The carbs, bounded as the declared amounts are (meal.fields.ts), but a field section 2.4 shows and requires. */
const CARBS: Bounds<'maxGrams'> = { unit: 'grams', symbol: 'g', example: '12.5', min: 0, max: 'maxGrams', integer: false };

/** The JSON of POST and PATCH /api/meals, with the configured limits. Unknown fields are refused. */
export function mealInputSchemas(limits: MealLimits) {
  const fields = {
    name: plainTextSchema({ maxLength: limits.maxNameLength }),
    carbs: numberSchema(CARBS, limits),
    absorptionType: z.enum(limits.absorptionTypes, { error: `must be one of ${limits.absorptionTypes.join(', ')}` }),
    logged_at: loggedAtInputSchema,
  };
  const create = z.strictObject({
    ...fields,
    ...fieldSchemas(MEAL_AMOUNTS, limits, (schema) => schema.optional()),
    absorptionType: fields.absorptionType.optional(),
  });
  // In a PATCH, null removes an optional field; absent leaves it as it is.
  const update = z
    .strictObject({
      name: fields.name.optional(),
      carbs: fields.carbs.optional(),
      ...fieldSchemas(MEAL_AMOUNTS, limits, (schema) => schema.nullable().optional()),
      absorptionType: fields.absorptionType.nullable().optional(),
      logged_at: fields.logged_at.optional(),
    })
    .refine((changes) => Object.keys(changes).length > 0, { error: 'must change at least one field' });
  const batch = z.strictObject({
    items: z
      .array(create)
      .min(1, { error: 'must hold at least one item' })
      .max(limits.batchMax, { error: `must hold at most ${limits.batchMax} items` }),
  });
  return { create, update, batch };
}

/**
 * The body limit of POST /api/meals/batch: a full import of the longest items, each name written in
 * \uXXXX escapes (6 bytes a character), and about 500 bytes for the other fields and their names.
 */
export function batchBodyLimitBytes(limits: MealLimits): number {
  return limits.batchMax * (limits.maxNameLength * 6 + 512);
}

export type MealInput = z.infer<ReturnType<typeof mealInputSchemas>['create']>;
export type MealChanges = z.infer<ReturnType<typeof mealInputSchemas>['update']>;

export const mealIdSchema = z.coerce.number({ error: 'must be a meal id' }).int().positive().max(MAX_ROW_ID);
