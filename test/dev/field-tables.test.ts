import { describe, expect, it } from 'vitest';
import { amountTable, measurementTable } from '../../src/dev/field-tables.js';
import { declareAmounts } from '../../src/nutrition/amount-declaration.js';
import { declareMeasurements } from '../../src/wellness/measurement-declaration.js';

const fibre = { column: 'fibre', label: 'Fibre (g)', words: 'Fibre', unit: 'grams', symbol: 'g', example: '3' };
const hydration = { column: 'hydration_ml', label: 'Water (ml)', words: 'water', unit: 'millilitres', min: 0, max: 10_000 };

describe('the tables npm run fields prints', () => {
  it('give each meal amount, in the order declared, its unit, its most (a configured limit by its variable) and how it is sent', () => {
    const amounts = declareAmounts({
      fibre: { ...fibre, max: 'maxGrams', sent: 'rawJson' },
      sugar: { ...fibre, column: 'sugar', max: 500, sent: 'rawJson' },
    });
    expect(amountTable(amounts).split('\n')).toEqual([
      '| Field | Unit | Most | Sent as |',
      '| --- | --- | --- | --- |',
      '| `fibre` | grams | `MEAL_MAX_GRAMS` | rawJson |',
      '| `sugar` | grams | 500 | rawJson |',
    ]);
  });

  it('give each wellness measurement, in the order declared, its unit, bounds, whether whole and how it is sent', () => {
    const measurements = declareMeasurements({
      hydrationMl: { ...hydration, integer: true, sent: 'rawJson' },
      hrv: { ...hydration, column: 'hrv', unit: 'milliseconds', min: 1, max: 500, integer: false, sent: 'record' },
    });
    expect(measurementTable(measurements).split('\n')).toEqual([
      '| Field | Unit | From | To | Whole number | Sent as |',
      '| --- | --- | --- | --- | --- | --- |',
      '| `hydrationMl` | millilitres | 0 | 10000 | yes | rawJson |',
      '| `hrv` | milliseconds | 1 | 500 | no | own field |',
    ]);
  });
});
