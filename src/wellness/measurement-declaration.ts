import { WELLNESS_RECORD_FIELDS, type WellnessRecordField } from '../provider/records.js';

/**
 * One wellness measurement, declared once (wellness.fields.ts): the input schema, the stored column,
 * the table's type, the page's fields and words and the record sent all follow from it.
 */
export interface MeasurementDeclaration {
  /** Its column in wellness_days, added by a migration (a test fails for a declared column the migrated schema lacks). */
  column: string;
  /** The heading of its column on the page, which also names it in a refusal there: "HRV (ms)". */
  label: string;
  /** How a sentence names it: "resting heart rate". */
  words: string;
  /** Its unit in words, for the messages of a value out of bounds. */
  unit: string;
  /** The bounds of a human body: outside them, a typing mistake, refused rather than sent. */
  min: number;
  max: number;
  integer: boolean;
  /**
   * `record`: a field of its own in the record sent, for a measurement the interface document shows
   * (§2.3, WELLNESS_RECORD_FIELDS, with its number type); any other is a compile error.
   * `rawJson`: sent only inside rawJson, the client's raw payload the service keeps for reference.
   */
  sent: 'record' | 'rawJson';
  /** A duration in seconds that the page asks for as hours and minutes, in these two form fields. */
  typedAs?: { hours: string; minutes: string };
}

export type MeasurementDeclarations = Record<string, MeasurementDeclaration>;

/** A declaration the interface document refuses; the compiler's message quotes `why`. */
interface Refused<Why extends string> {
  refused: Why;
}

/**
 * What the interface document allows of a declaration sent as its own field: a name §2.3 shows,
 * and a whole number where §2.3 says integer.
 */
export type Documented<Declarations> = {
  [Name in keyof Declarations]: Declarations[Name] extends { sent: 'record' }
    ? Name extends WellnessRecordField
      ? (typeof WELLNESS_RECORD_FIELDS)[Name] extends 'integer'
        ? Declarations[Name] extends { integer: true }
          ? unknown
          : Refused<'section 2.3 says this field is an integer: declare it integer: true'>
        : unknown
      : Refused<'section 2.3 does not show this field: declare it sent: "rawJson"'>
    : unknown;
};

/**
 * The declarations as given, checked against the interface document at compile time: a measurement
 * §2.3 does not show, declared `sent: 'record'`, fails here, saying so.
 */
export function declareMeasurements<const Declarations extends MeasurementDeclarations>(
  declarations: Declarations & Documented<Declarations>,
): Declarations {
  return declarations;
}

/** The names of the declared measurements, in the order declared. */
export function measurementNames<Declarations extends MeasurementDeclarations>(
  declarations: Declarations,
): Array<keyof Declarations & string> {
  return Object.keys(declarations);
}

/** A day's measurements: each one entered is a number, one not entered absent. */
export type MeasurementsOf<Declarations extends MeasurementDeclarations> = { [Name in keyof Declarations]?: number };
