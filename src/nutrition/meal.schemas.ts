import { z } from 'zod';
import type { Config } from '../config.js';
import { MAX_ROW_ID } from '../db/row-id.js';
import { plainTextSchema } from '../text/plain-text.js';
import { amountNames, type AmountDeclaration } from './amount-declaration.js';
import { loggedAtInputSchema } from './local-date.js';
import { MEAL_AMOUNTS, type AmountName } from './meal.fields.js';

export type MealLimits = Config['meals'];

/** An amount (the carbs, or one declared in meal.fields.ts): a decimal number from 0 to its most. */
function amountSchema({ unit, symbol, example, max }: Pick<AmountDeclaration, 'unit' | 'symbol' | 'example' | 'max'>, limits: MealLimits) {
  const most = typeof max === 'number' ? max : limits[max];
  return z
    .number({ error: `must be a decimal number of ${unit}, such as ${example}` })
    .min(0, { error: 'must not be negative' })
    .max(most, { error: `must be at most ${most} ${symbol}` });
}

/** Each declared amount's schema, as `make` turns it (optional, or nullable too). */
function amountSchemas<Schema>(limits: MealLimits, make: (schema: z.ZodNumber) => Schema): Record<AmountName, Schema> {
  return Object.fromEntries(amountNames(MEAL_AMOUNTS).map((name) => [name, make(amountSchema(MEAL_AMOUNTS[name], limits))])) as Record<
    AmountName,
    Schema
  >;
}

/** The JSON of POST and PATCH /api/meals, with the configured limits. Unknown fields are refused. */
export function mealInputSchemas(limits: MealLimits) {
  const fields = {
    name: plainTextSchema({ maxLength: limits.maxNameLength }),
    carbs: amountSchema({ unit: 'grams', symbol: 'g', example: '12.5', max: 'maxGrams' }, limits),
    absorptionType: z.enum(limits.absorptionTypes, { error: `must be one of ${limits.absorptionTypes.join(', ')}` }),
    logged_at: loggedAtInputSchema,
  };
  const create = z.strictObject({
    ...fields,
    ...amountSchemas(limits, (schema) => schema.optional()),
    absorptionType: fields.absorptionType.optional(),
  });
  // In a PATCH, null removes an optional field; absent leaves it as it is.
  const update = z
    .strictObject({
      name: fields.name.optional(),
      carbs: fields.carbs.optional(),
      ...amountSchemas(limits, (schema) => schema.nullable().optional()),
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
