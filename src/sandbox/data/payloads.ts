import { z } from 'zod';
import type { Settings } from '../settings.js';

/** A real calendar date written YYYY-MM-DD (zod's ISO date rejects 2026-02-30). */
const calendarDate = z.iso.date({ error: 'expected a real calendar date written YYYY-MM-DD' });

/** Section 4.7 rule 2: timestamps carry a timezone offset or Z; seconds are required. */
const timestampWithOffset = z.iso.datetime({
  offset: true,
  error: 'expected an ISO 8601 date-time with seconds and an offset or Z, e.g. 2026-03-01T07:30:00+01:00',
});

/** `rawJson` is "the client's raw payload": an object, not an array or a scalar. */
const jsonObject = z.looseObject({}, { error: 'expected a JSON object' });

const nonBlankText = z.string().regex(/\S/, { error: 'must not be blank' });

/**
 * What a record does with a field the document does not show. Sections 2.3 and 2.4 show only part
 * of each schema, so by default such a field is kept (`keep`), while every field the document does
 * show is checked strictly. With the `strictFields` setting it is refused (`refuse`): 400 naming
 * it, so a client learns here that it sends a field the document does not promise the service takes.
 */
export type UnknownFields = 'keep' | 'refuse';

const NOT_SHOWN = 'is not a field the interface document shows (the sandbox refuses these with strictFields on)';

/** Read per request, so strictFields changed through /_sandbox/settings applies at once. */
export function unknownFieldsOf({ strictFields }: Settings): UnknownFields {
  return strictFields ? 'refuse' : 'keep';
}

/** A record's object: either way, what it holds is typed as the lenient object (the refusing one holds less). */
export function shownFieldsObject<Shape extends z.ZodRawShape>(
  unknownFields: UnknownFields,
  shape: Shape,
): z.ZodType<z.output<z.ZodObject<Shape, z.core.$loose>>> {
  if (unknownFields === 'keep') return z.looseObject(shape);
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? NOT_SHOWN : undefined) });
}

function recordSchemas(unknownFields: UnknownFields) {
  const nutritionItem = shownFieldsObject(unknownFields, {
    name: nonBlankText,
    carbs: z.number(),
    logged_at: timestampWithOffset,
    absorptionType: nonBlankText.optional(),
  });
  return {
    nutrition: shownFieldsObject(unknownFields, {
      date: calendarDate,
      // An empty list is a day whose items were all removed: it must be able to replace the stored day.
      items: z.array(nutritionItem),
      rawJson: jsonObject.optional(),
    }),
    wellness: shownFieldsObject(unknownFields, {
      date: z.union([calendarDate, timestampWithOffset], {
        error: 'expected a calendar date YYYY-MM-DD or an ISO 8601 date-time with an offset',
      }),
      hrv: z.number().optional(),
      restingHr: z.int().optional(),
      sleepSecs: z.int().optional(),
      weight: z.number().optional(),
      vo2max: z.number().optional(),
      rawJson: jsonObject.optional(),
    }),
  };
}

export const RECORD_SCHEMAS: Record<UnknownFields, ReturnType<typeof recordSchemas>> = {
  keep: recordSchemas('keep'),
  refuse: recordSchemas('refuse'),
};

export type NutritionRecord = z.infer<typeof RECORD_SCHEMAS.keep.nutrition>;

export type WellnessRecord = z.infer<typeof RECORD_SCHEMAS.keep.wellness>;

/** Section 2.3: a daily aggregate belongs to the calendar date as written, whatever the offset. */
export function wellnessDay(record: WellnessRecord): string {
  return record.date.slice(0, 'YYYY-MM-DD'.length);
}
