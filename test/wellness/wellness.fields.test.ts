import { describe, expect, it } from 'vitest';
import { WELLNESS_MEASUREMENTS, type WellnessRecordAsShown } from '../../src/wellness/wellness.fields.js';
import { useMigratedDatabase } from '../helpers/database.js';
import { declaredColumnProblems, declaredColumns } from '../helpers/declared-columns.js';
import type { Verdicts } from '../helpers/field-verdicts.js';

const db = useMigratedDatabase();

describe('the declared wellness measurements and the migrated schema', () => {
  it('have a column for every measurement, nullable, keeping the decimals of those that have some', async () => {
    expect(await declaredColumnProblems(db(), 'wellness_days', declaredColumns(WELLNESS_MEASUREMENTS))).toEqual([]);
  });

  it('name a declared measurement that no migration gave a column, and one whose column would round it', async () => {
    const declared = {
      ...WELLNESS_MEASUREMENTS,
      exampleWaterMl: { ...WELLNESS_MEASUREMENTS.restingHr, column: 'example_water_ml' },
      restingHr: { ...WELLNESS_MEASUREMENTS.restingHr, integer: false },
    };
    expect(await declaredColumnProblems(db(), 'wellness_days', declaredColumns(declared))).toEqual([
      'restingHr: column resting_hr holds whole numbers only, and restingHr is declared with decimals',
      'exampleWaterMl: wellness_days has no column example_water_ml: add a migration that adds it',
    ]);
  });
});

describe('a wellness measurement declared sent as a field of its own', () => {
  it('compiles only for a number field section 2.3 shows, whole where it says integer, and the compiler says why', () => {
    const wellness: Verdicts<
      { restingHr: { sent: 'record'; integer: false }; hrv: { sent: 'record'; integer: false }; waterMl: { sent: 'record' } },
      WellnessRecordAsShown
    > = {
      restingHr: 'section 2.3 says this field is an integer: declare it integer: true',
      hrv: 'accepted',
      waterMl: 'section 2.3 does not show this field: declare it sent: "rawJson"',
    };
    // The check is the compiler's (npm test runs tsc first); these values only repeat what it accepted.
    expect(wellness.waterMl).toMatch(/^section 2.3/);
  });
});
