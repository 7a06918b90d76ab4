/**
 * What the records the service takes have in common (section 2). Each kind's record is in its
 * folder (its *.service.ts), field by field as the document shows it, and nothing more: a field the
 * document does not show reaches the service only inside rawJson, "the client's raw payload", kept
 * for reference (§2.3, §2.4). Change them only when the document changes.
 */

/** What the service keeps for reference: free-form, but an object (§2.3, §2.4 say "object"). */
export type RawJson = Record<string, unknown>;

/** §2.3's number types: `integer` where the document says integer. */
export type NumberType = 'number' | 'integer';

/**
 * `Built` when it has no key `Shape` lacks. TypeScript refuses an unknown key only in an object
 * literal written in place, not one spread into it (`...(x && { sodium })`); this refuses both.
 */
export type Exact<Shape, Built extends Shape> = Built & { [Key in Exclude<keyof Built, keyof Shape>]: never };

/** The identity, typed so that a record with a field `Shape` does not show is a compile error. */
export function exactly<Shape>(): <Built extends Shape>(record: Exact<Shape, Built>) => Shape {
  return (record) => record;
}
