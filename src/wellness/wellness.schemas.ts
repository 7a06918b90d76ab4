import { z } from 'zod';
import {
  measurementNames,
  type MeasurementDeclaration,
  type MeasurementDeclarations,
  type MeasurementsOf,
} from './measurement-declaration.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';

function measurementSchema({ unit, min, max, integer }: MeasurementDeclaration) {
  const error = `must be ${integer ? 'a whole number' : 'a number'} of ${unit} from ${min} to ${max}`;
  return (integer ? z.int({ error }) : z.number({ error })).min(min, { error }).max(max, { error }).optional();
}

/**
 * The body of PUT /api/wellness/:date for these measurements: the whole record of the day. A
 * measurement not entered is absent (null is refused, not stored); unknown fields are refused; a
 * record needs one measurement.
 */
export function measurementsSchemaOf<Declarations extends MeasurementDeclarations>(
  declarations: Declarations,
): z.ZodType<MeasurementsOf<Declarations>> {
  const names = measurementNames(declarations);
  return z
    .strictObject(Object.fromEntries(names.map((name) => [name, measurementSchema(declarations[name]!)])))
    .refine((record) => names.some((name) => record[name] !== undefined), { error: `must hold at least one of ${names.join(', ')}` });
}

export const wellnessInputSchema = measurementsSchemaOf(WELLNESS_MEASUREMENTS);

export type Measurements = MeasurementsOf<typeof WELLNESS_MEASUREMENTS>;
