import { z } from 'zod';

// Sections 2.3 and 2.4 show only part of each schema, so unknown fields are kept (loose objects),
// while every field the document does show is checked strictly.

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

export const nutritionItemSchema = z.looseObject({
  name: nonBlankText,
  carbs: z.number(),
  logged_at: timestampWithOffset,
  absorptionType: nonBlankText.optional(),
});

export const nutritionRecordSchema = z.looseObject({
  date: calendarDate,
  // An empty list is a day whose items were all removed: it must be able to replace the stored day.
  items: z.array(nutritionItemSchema),
  rawJson: jsonObject.optional(),
});

export type NutritionRecord = z.infer<typeof nutritionRecordSchema>;

export const wellnessRecordSchema = z.looseObject({
  date: z.union([calendarDate, timestampWithOffset], {
    error: 'expected a calendar date YYYY-MM-DD or an ISO 8601 date-time with an offset',
  }),
  hrv: z.number().optional(),
  restingHr: z.int().optional(),
  sleepSecs: z.int().optional(),
  weight: z.number().optional(),
  vo2max: z.number().optional(),
  rawJson: jsonObject.optional(),
});

export type WellnessRecord = z.infer<typeof wellnessRecordSchema>;

/** Section 2.3: a daily aggregate belongs to the calendar date as written, whatever the offset. */
export function wellnessDay(record: WellnessRecord): string {
  return record.date.slice(0, 'YYYY-MM-DD'.length);
}
