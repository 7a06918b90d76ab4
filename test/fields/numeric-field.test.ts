import { describe, expect, it } from 'vitest';
import { formColumnsOf, formValuesOf, formWordsOf, numbersFromForm } from '../../src/fields/field-form.js';
import { fieldSchemas, numberSchema } from '../../src/fields/field-schema.js';
import { columnChangesOf, columnsOf, fieldNames, recordFieldsOf, valuesOfRow, valuesSentAs } from '../../src/fields/field-values.js';
import { numericFields } from '../../src/fields/numeric-field.js';
import type { Verdicts } from '../helpers/field-verdicts.js';

/**
 * A kind that exists only here, to show that the declaration serves any record a section of the
 * interface document shows: a day of walking, whose record shows `steps` (an integer) and `note`.
 */
type WalkAsShown = {
  record: { date: string; steps?: number; note?: string };
  integers: 'steps';
  section: 'the walking record';
  field: 'this field';
};

const declareWalk = numericFields<WalkAsShown, 'maxKm'>();

const WALK = declareWalk({
  steps: { column: 'steps', label: 'Steps', words: 'steps', unit: 'steps', min: 0, max: 100_000, integer: true, sent: 'record' },
  distanceKm: {
    column: 'distance_km',
    label: 'Distance (km)',
    words: 'Distance',
    unit: 'kilometres',
    symbol: 'km',
    example: '4.5',
    min: 0,
    max: 'maxKm',
    integer: false,
    sent: 'rawJson',
  },
  walked: {
    column: 'walked_secs',
    label: 'Walked',
    words: 'time walked',
    unit: 'seconds',
    min: 0,
    max: 43_200,
    integer: true,
    sent: 'rawJson',
    typedAs: { hours: 'walkedHours', minutes: 'walkedMinutes' },
  },
});

const LIMITS = { maxKm: 200 };

describe('declared numeric fields', () => {
  it('are named in the order declared', () => {
    expect(fieldNames(WALK)).toEqual(['steps', 'distanceKm', 'walked']);
  });

  it('are stored a column each, null for one not given, and read back with that one absent, never null', () => {
    const columns = columnsOf(WALK, { steps: 8000, walked: 3600 });
    expect(columns).toEqual({ steps: 8000, distance_km: null, walked_secs: 3600 });
    expect(valuesOfRow(WALK, { ...columns, id: 1 } as typeof columns)).toEqual({ steps: 8000, walked: 3600 });
  });

  it('are changed only where a change names them: a number sets one, null removes it', () => {
    expect(columnChangesOf(WALK, { steps: 9000, distanceKm: null })).toEqual({ steps: 9000, distance_km: null });
    expect(columnChangesOf(WALK, {})).toEqual({});
  });

  it('are sent as declared: as fields of the record, or inside rawJson', () => {
    const values = { walked: 60, steps: 8000, distanceKm: 5.5 };
    expect(recordFieldsOf(WALK, values)).toEqual({ steps: 8000 });
    expect(valuesSentAs(WALK, values, 'rawJson')).toEqual({ distanceKm: 5.5, walked: 60 });
    expect(Object.keys(valuesSentAs(WALK, values))).toEqual(['steps', 'distanceKm', 'walked']);
  });
});

describe('the schema of a declared number', () => {
  const schemas = fieldSchemas(WALK, LIMITS, (schema) => schema);
  const refusal = (name: keyof typeof schemas, value: unknown) => schemas[name].safeParse(value).error?.issues[0]?.message;

  it('takes a number within its bounds, its most a configured limit where declared so', () => {
    expect(schemas.steps.parse(100_000)).toBe(100_000);
    expect(schemas.distanceKm.parse(200)).toBe(200);
  });

  it('without an example, gives the bounds in one sentence for every refusal', () => {
    for (const value of ['8000', 100_001, -1, 1.5])
      expect(refusal('steps', value)).toBe('must be a whole number of steps from 0 to 100000');
  });

  it('with an example, says each problem in its own words', () => {
    expect(refusal('distanceKm', '4,5')).toBe('must be a decimal number of kilometres, such as 4.5');
    expect(refusal('distanceKm', -1)).toBe('must not be negative');
    expect(refusal('distanceKm', 200.5)).toBe('must be at most 200 km');
    const fromFive = numberSchema({ unit: 'grams', symbol: 'g', example: '12.5', min: 5, max: 10, integer: false }, {});
    expect(fromFive.safeParse(4).error?.issues[0]?.message).toBe('must be at least 5 g');
  });
});

describe('the form fields of declared numbers', () => {
  const blank = { steps: '', distanceKm: '', walkedHours: '', walkedMinutes: '' };

  it('are one per number, and a duration its hours and minutes', () => {
    expect(formColumnsOf(WALK)).toEqual([
      { name: 'steps', label: 'Steps', fields: [{ name: 'steps', label: 'Steps' }] },
      { name: 'distanceKm', label: 'Distance (km)', fields: [{ name: 'distanceKm', label: 'Distance (km)' }] },
      {
        name: 'walked',
        label: 'Walked',
        fields: [
          { name: 'walkedHours', label: 'Walked hours', unit: 'h' },
          { name: 'walkedMinutes', label: 'Walked minutes', unit: 'min' },
        ],
      },
    ]);
  });

  it("name each number in a refusal by its label or its words, next to its field, and a duration's parts by theirs", () => {
    expect(formWordsOf(WALK, 'words')).toEqual({
      steps: { label: 'steps', input: 'steps' },
      distanceKm: { label: 'Distance', input: 'distanceKm' },
      walked: { label: 'time walked', input: 'walkedHours' },
      walkedHours: { label: 'Walked hours', input: 'walkedHours' },
      walkedMinutes: { label: 'Walked minutes', input: 'walkedMinutes' },
    });
    expect(formWordsOf(WALK, 'label').distanceKm).toEqual({ label: 'Distance (km)', input: 'distanceKm' });
  });

  it('show stored values, empty for one not given, a duration to the nearest minute', () => {
    expect(formValuesOf(WALK, { steps: 8000, walked: 5430 })).toEqual({
      steps: '8000',
      distanceKm: '',
      walkedHours: '1',
      walkedMinutes: '31',
    });
    expect(formValuesOf(WALK, undefined)).toEqual(blank);
  });

  it('read as the JSON the API takes: empty is absent, a decimal comma a number, anything else text for the schema to name', () => {
    expect(numbersFromForm(WALK, { ...blank, steps: ' 8000 ', distanceKm: '4,5', walkedHours: '1' })).toEqual({
      ok: true,
      input: { steps: 8000, distanceKm: 4.5, walked: 3600 },
    });
    expect(numbersFromForm(WALK, { ...blank, steps: '8k' })).toEqual({ ok: true, input: { steps: '8k' } });
    expect(numbersFromForm(WALK, blank)).toEqual({ ok: true, input: {} });
  });

  it("refuse a duration's part as typed, and a duration beyond its most by the number's name", () => {
    const part = numbersFromForm(WALK, { ...blank, walkedMinutes: '7.5' });
    expect(part.ok || part.refusal.issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: ['walkedMinutes'], message: 'must be a whole number of minutes from 0 to 59' },
    ]);
    const beyond = numbersFromForm(WALK, { ...blank, walkedHours: '12', walkedMinutes: '1' });
    expect(beyond.ok || beyond.refusal.issues.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: ['walked'], message: 'can be 12 hours at most' },
    ]);
  });
});

describe('a declaration sent as a field of its own', () => {
  it('compiles only for a number field the section shows, whole where the section says integer, and the compiler says why', () => {
    const walk: Verdicts<
      {
        steps: { sent: 'record'; integer: true };
        note: { sent: 'record' };
        pace: { sent: 'record' };
        cadence: { sent: 'rawJson' };
      },
      WalkAsShown
    > = {
      steps: 'accepted',
      note: 'the walking record shows this field, but not as a number',
      pace: 'the walking record does not show this field: declare it sent: "rawJson"',
      cadence: 'accepted',
    };
    const inDecimals: Verdicts<{ steps: { sent: 'record'; integer: false } }, WalkAsShown> = {
      steps: 'the walking record says this field is an integer: declare it integer: true',
    };
    // The check is the compiler's (npm test runs tsc first); these values only repeat what it accepted.
    expect([walk.pace, inDecimals.steps]).toHaveLength(2);
  });

  it('is refused by the compiler when the section does not show it', () => {
    // @ts-expect-error the walking record does not show pace
    const declared = declareWalk({ pace: { ...WALK.steps, column: 'pace' } });
    expect(declared.pace.sent).toBe('record');
  });
});
