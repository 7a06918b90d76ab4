import type { Documented, DocumentedRecord } from '../../src/fields/numeric-field.js';

/** What the compiler says of each declaration of `Fields` against the record `Shown`: the words of its refusal, or `accepted`. */
export type Verdicts<Fields, Shown extends DocumentedRecord> = {
  [Name in keyof Fields]: Documented<Fields, Shown>[Name] extends { refused: infer Why } ? Why : 'accepted';
};
