import { z } from 'zod';
import { fieldNames } from './field-values.js';
import type { Bounds, LimitOf, NumericFields } from './numeric-field.js';

/** The configured limits a field's most may name (`maxGrams`), as numbers. */
export type Limits<Limit extends string> = Readonly<Record<Limit, number>>;

/** The messages of a value refused, as `Bounds` says: each problem its own, or one giving the bounds. */
function refusals({ unit, min, integer, symbol, example }: Bounds<string>, most: number) {
  if (example === undefined) {
    const bounds = `must be ${integer ? 'a whole number' : 'a number'} of ${unit} from ${min} to ${most}`;
    return { kind: bounds, min: bounds, max: bounds };
  }
  return {
    kind: `must be ${integer ? 'a whole number' : 'a decimal number'} of ${unit}, such as ${example}`,
    min: min === 0 ? 'must not be negative' : `must be at least ${min} ${symbol}`,
    max: `must be at most ${most} ${symbol}`,
  };
}

/** A value as the JSON API takes it: a number (whole if declared so) within its bounds, a configured most read from `limits`. */
export function numberSchema<Limit extends string>(bounds: Bounds<Limit>, limits: Limits<Limit>): z.ZodNumber {
  const most = typeof bounds.max === 'number' ? bounds.max : limits[bounds.max];
  const said = refusals(bounds, most);
  return (bounds.integer ? z.int({ error: said.kind }) : z.number({ error: said.kind }))
    .min(bounds.min, { error: said.min })
    .max(most, { error: said.max });
}

/** Each declared field's schema, as `make` turns it (optional; nullable too, where null removes one). */
export function fieldSchemas<Fields extends NumericFields<string>, Schema>(
  fields: Fields,
  limits: Limits<LimitOf<Fields>>,
  make: (schema: z.ZodNumber) => Schema,
): Record<keyof Fields & string, Schema> {
  return Object.fromEntries(
    fieldNames(fields).map((name) => [name, make(numberSchema(fields[name]!, limits as Limits<string>))]),
  ) as Record<keyof Fields & string, Schema>;
}
