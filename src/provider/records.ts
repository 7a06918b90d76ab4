/**
 * The records the service takes, field by field as the interface document shows them (section 2),
 * and nothing more: a field the document does not show reaches the service only inside rawJson,
 * "the client's raw payload", kept for reference (§2.3, §2.4). Change these only when the document
 * changes.
 */

/** What the service keeps for reference: free-form, but an object (§2.3, §2.4 say "object"). */
export type RawJson = Record<string, unknown>;

/** §2.3's number types: `integer` where the document says integer. */
export type NumberType = 'number' | 'integer';

/** Section 2.3: the measurements a wellness record may carry besides `date` and `rawJson`. */
export const WELLNESS_RECORD_FIELDS = {
  hrv: 'number',
  restingHr: 'integer',
  sleepSecs: 'integer',
  weight: 'number',
  vo2max: 'number',
} as const satisfies Record<string, NumberType>;

export type WellnessRecordField = keyof typeof WELLNESS_RECORD_FIELDS;

/** Section 2.3; a measurement not taken is absent, never null. */
export type WellnessRecord = { date: string; rawJson: RawJson } & { [Field in WellnessRecordField]?: number };

/** Section 2.4, the item fields shown. */
export interface NutritionItem {
  name: string;
  carbs: number;
  logged_at: string;
  absorptionType?: string;
}

/** Section 2.4. */
export interface NutritionRecord {
  date: string;
  items: NutritionItem[];
  rawJson: RawJson;
}

/**
 * `Built` when it has no key `Shape` lacks. TypeScript refuses an unknown key only in an object
 * literal written in place, not one spread into it (`...(x && { sodium })`); this refuses both.
 */
export type Exact<Shape, Built extends Shape> = Built & { [Key in Exclude<keyof Built, keyof Shape>]: never };

/** The identity, typed so that a record with a field `Shape` does not show is a compile error. */
export function exactly<Shape>(): <Built extends Shape>(record: Exact<Shape, Built>) => Shape {
  return (record) => record;
}
