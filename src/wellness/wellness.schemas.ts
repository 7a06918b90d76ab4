import { z } from 'zod';
import { fieldSchemas } from '../fields/field-schema.js';
import { fieldNames } from '../fields/field-values.js';
import type { NumericFields, ValuesOf } from '../fields/numeric-field.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';

/**
 * The body of PUT /api/wellness/:date for these measurements: the whole record of the day. A
 * measurement not entered is absent (null is refused, not stored); unknown fields are refused; a
 * record needs one measurement.
 */
export function measurementsSchemaOf<Declarations extends NumericFields>(declarations: Declarations): z.ZodType<ValuesOf<Declarations>> {
  const names = fieldNames(declarations);
  const shape: Record<string, z.ZodOptional<z.ZodNumber>> = fieldSchemas(declarations, {}, (schema) => schema.optional());
  return z
    .strictObject(shape)
    .refine((record) => names.some((name) => record[name] !== undefined), { error: `must hold at least one of ${names.join(', ')}` });
}

export const wellnessInputSchema = measurementsSchemaOf(WELLNESS_MEASUREMENTS);

/** A day's measurements: each one entered is a number, one not entered absent. */
export type Measurements = ValuesOf<typeof WELLNESS_MEASUREMENTS>;
