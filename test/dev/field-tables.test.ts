import { describe, expect, it } from 'vitest';
import { fieldTable, fieldTables } from '../../src/dev/field-tables.js';
import { numericFields } from '../../src/fields/numeric-field.js';

/** The record of two kinds that exist only here, as a section of the interface document would show it. */
type DayAsShown = { record: { date: string; hrv?: number }; integers: never; section: 'the day record'; field: 'this field' };

const declareAmounts = numericFields<DayAsShown, 'maxGrams' | 'maxKcal'>();
const declareMeasurements = numericFields<DayAsShown>();

const fibre = { column: 'fibre', label: 'Fibre (g)', words: 'Fibre', unit: 'grams', symbol: 'g', example: '3', min: 0, integer: false };
const hydration = { column: 'hydration_ml', label: 'Water (ml)', words: 'water', unit: 'millilitres', min: 0, max: 10_000 };

const amounts = {
  title: 'Meal item amounts',
  fields: declareAmounts({
    fibre: { ...fibre, max: 'maxGrams', sent: 'rawJson' },
    sugar: { ...fibre, column: 'sugar', max: 500, sent: 'rawJson' },
  }),
  limitVariables: { maxGrams: 'MEAL_MAX_GRAMS', maxKcal: 'MEAL_MAX_KCAL' },
};

const measurements = {
  title: 'Wellness measurements',
  fields: declareMeasurements({
    hydrationMl: { ...hydration, integer: true, sent: 'rawJson' },
    hrv: { ...hydration, column: 'hrv', unit: 'milliseconds', min: 1, max: 500, integer: false, sent: 'record' },
  }),
  limitVariables: {},
};

describe('the tables npm run fields prints', () => {
  it('give each meal amount, in the order declared, its unit, its bounds (a configured limit by its variable) and how it is sent', () => {
    expect(fieldTable(amounts).split('\n')).toEqual([
      '| Field | Unit | From | To | Whole number | Sent as |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `fibre` | grams | 0 | `MEAL_MAX_GRAMS` | no | rawJson |',
      '| `sugar` | grams | 0 | 500 | no | rawJson |',
    ]);
  });

  it('give each wellness measurement, in the order declared, its unit, bounds, whether whole and how it is sent', () => {
    expect(fieldTable(measurements).split('\n')).toEqual([
      '| Field | Unit | From | To | Whole number | Sent as |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `hydrationMl` | millilitres | 0 | 10000 | yes | rawJson |',
      '| `hrv` | milliseconds | 1 | 500 | no | own field |',
    ]);
  });

  it('print each set of fields under its title, in the order given', () => {
    const printed = fieldTables([amounts, measurements]);
    expect(printed.split('\n').filter((line) => line.startsWith('#'))).toEqual(['## Meal item amounts', '## Wellness measurements']);
    expect(printed).toBe(`## Meal item amounts\n\n${fieldTable(amounts)}\n\n## Wellness measurements\n\n${fieldTable(measurements)}`);
  });
});
