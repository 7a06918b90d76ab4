/**
 * A number a kind takes from people and sends (a meal item's protein, a day's HRV), declared once
 * in its kind's fields module (`meal.fields.ts`, `wellness.fields.ts`): the input schema and its
 * messages, the stored column, the table's type, the page's fields and words, the record sent and
 * the table `npm run fields` prints all follow from it.
 */
export type NumericField<Limit extends string = never> = Bounds<Limit> & {
  /** Its column in the kind's table, added by a migration (a test fails for a declared column the migrated schema lacks). */
  column: string;
  /** The label of its field on the page: "Protein (g)", "HRV (ms)". */
  label: string;
  /** How a sentence names it: "Protein", "resting heart rate". */
  words: string;
  /**
   * `record`: a field of its own in the record sent, for one the interface document shows of that
   * record (with a number type; checked at compile time, `Documented`). `rawJson`: sent only inside
   * rawJson, the client's raw payload the service keeps for reference.
   */
  sent: 'record' | 'rawJson';
} & TypedAs;

/** A duration in seconds that the page asks for as hours and minutes, in these two form fields; its most is a number of seconds. */
type TypedAs = { typedAs?: undefined } | { typedAs: { hours: string; minutes: string }; max: number };

/**
 * What a value may be, and how one refused is told. Outside its bounds a value is a typing mistake
 * (or beyond a configured limit), refused rather than sent.
 */
export type Bounds<Limit extends string = never> = {
  /** Its unit in words: "grams", "beats per minute". */
  unit: string;
  min: number;
  /** The most it may be: a number, or the name of a configured limit of its kind (`maxGrams`). */
  max: number | Limit;
  integer: boolean;
} & RefusedWith;

/**
 * With an example and the unit's symbol, each problem has its own words: "must be a decimal number
 * of grams, such as 12.5", "must not be negative", "must be at most 1000 g" (an amount, whose most
 * is a limit rather than a fact). Without, one sentence gives the bounds: "must be a number of
 * kilograms from 20 to 400" (a measurement of a human body).
 */
type RefusedWith = { symbol?: undefined; example?: undefined } | { symbol: string; example: string };

export type NumericFields<Limit extends string = never> = Record<string, NumericField<Limit>>;

/**
 * The record a kind sends, as a section of the interface document shows it (its kind's `*.service.ts`),
 * for checking the fields declared `sent: 'record'`: the record's type, the fields the section says
 * are integers, and the words a refusal names them by.
 */
export interface DocumentedRecord {
  record: object;
  integers: PropertyKey;
  /** "section 2.3" */
  section: string;
  /** "this field", "this field of an item" */
  field: string;
}

/** A declaration the interface document refuses; the compiler's message quotes `why`. */
interface Refused<Why extends string> {
  refused: Why;
}

/**
 * What the interface document allows of a field sent as its own: a number field the section shows
 * of the record, and a whole number where the section says integer.
 */
export type Documented<Fields, Shown extends DocumentedRecord> = {
  [Name in keyof Fields]: Fields[Name] extends { sent: 'record' }
    ? Name extends keyof Shown['record']
      ? Shown['record'][Name] extends number | undefined
        ? Name extends Shown['integers']
          ? Fields[Name] extends { integer: true }
            ? unknown
            : Refused<`${Shown['section']} says ${Shown['field']} is an integer: declare it integer: true`>
          : unknown
        : Refused<`${Shown['section']} shows ${Shown['field']}, but not as a number`>
      : Refused<`${Shown['section']} does not show ${Shown['field']}: declare it sent: "rawJson"`>
    : unknown;
};

/**
 * The declaring function of a kind's fields: it returns the declarations as given, checked at
 * compile time against the record the kind sends (a field `sent: 'record'` the section does not
 * show fails, saying so), with maxima that are numbers or names of the kind's limits.
 */
export function numericFields<Shown extends DocumentedRecord, Limit extends string = never>() {
  return <const Fields extends NumericFields<Limit>>(fields: Fields & Documented<Fields, Shown>): Fields => fields;
}

/** The configured limits a kind's fields name as their most. */
export type LimitOf<Fields extends NumericFields<string>> = Extract<Fields[keyof Fields]['max'], string>;

/** A kind's fields as `npm run fields` prints them: a heading, the fields, and each configured limit by its variable. */
export interface FieldSet<Limit extends string = string> {
  title: string;
  fields: NumericFields<Limit>;
  limitVariables: Record<Limit, string>;
}

/** The fields' values: each given is a number, one not given absent. */
export type ValuesOf<Fields> = { [Name in keyof Fields]?: number };

/** A change of them: a number sets one, null removes it, absent leaves it. */
export type ChangesOf<Fields> = { [Name in keyof Fields]?: number | null };

/** A column per field: its value, or null when not given. */
export type ColumnsOf<Fields extends NumericFields<string>> = { [Name in keyof Fields as Fields[Name]['column']]: number | null };

/** The values sent as fields of the record: those declared `sent: 'record'` (which `Documented` allows only where the record shows them). */
export type RecordFieldsOf<Fields> = { [Name in keyof Fields as Fields[Name] extends { sent: 'record' } ? Name : never]?: number };
