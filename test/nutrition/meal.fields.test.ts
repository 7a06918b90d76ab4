import { describe, expect, it } from 'vitest';
import { fieldNames } from '../../src/fields/field-values.js';
import { nutritionRecord } from '../../src/nutrition/day-record.js';
import { declareAmounts, MEAL_AMOUNTS, type ItemAsShown } from '../../src/nutrition/meal.fields.js';
import type { MealItem } from '../../src/nutrition/meal.table.js';
import { useMigratedDatabase } from '../helpers/database.js';
import { declaredColumnProblems, declaredColumns } from '../helpers/declared-columns.js';
import type { Verdicts } from '../helpers/field-verdicts.js';

const db = useMigratedDatabase();

const NAMES = fieldNames(MEAL_AMOUNTS);

describe('the declared amounts of a meal item', () => {
  it('each have a nullable column that keeps decimals in the migrated meal_items', async () => {
    expect(await declaredColumnProblems(db(), 'meal_items', declaredColumns(MEAL_AMOUNTS))).toEqual([]);
  });

  it('are named while a declared one has no column', async () => {
    const declared = { ...MEAL_AMOUNTS, exampleSodiumMg: { ...MEAL_AMOUNTS.protein, column: 'example_sodium_mg' } };
    expect(await declaredColumnProblems(db(), 'meal_items', declaredColumns(declared))).toEqual([
      'exampleSodiumMg: meal_items has no column example_sodium_mg: add a migration that adds it',
    ]);
  });

  it('reach the service as they are declared: inside rawJson, or as a field of the item section 2.4 shows', () => {
    const stored = Object.fromEntries(NAMES.map((name, index) => [MEAL_AMOUNTS[name].column, index + 1.5]));
    const item = {
      id: 7,
      name: 'Oats',
      carbs: 60,
      logged_at: '2026-03-10T08:15:00+01:00',
      absorption_type: null,
      ...stored,
    } as unknown as MealItem;
    const record = nutritionRecord('2026-03-10', [item]);
    const given = (sent: 'record' | 'rawJson') =>
      Object.fromEntries(NAMES.flatMap((name, index) => (MEAL_AMOUNTS[name].sent === sent ? [[name, index + 1.5]] : [])));
    expect(record.items).toEqual([{ name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00', ...given('record') }]);
    expect(record.rawJson).toEqual({ source: 'athlete-sync', items: [{ id: 7, ...given('rawJson') }] });
  });

  it('cannot be sent as a field of an item unless section 2.4 shows it: the compiler refuses it', () => {
    // @ts-expect-error section 2.4 does not show exampleSodiumMg of an item
    const declared = declareAmounts({ exampleSodiumMg: { ...MEAL_AMOUNTS.protein, column: 'example_sodium_mg', sent: 'record' } });
    expect(declared.exampleSodiumMg.sent).toBe('record');
  });
});

describe('an amount of a meal item declared sent as a field of its own', () => {
  it('compiles only for a number field section 2.4 shows of an item, and the compiler says why', () => {
    const nutrition: Verdicts<{ fibre: { sent: 'record' }; name: { sent: 'record' } }, ItemAsShown> = {
      fibre: 'section 2.4 does not show this field of an item: declare it sent: "rawJson"',
      name: 'section 2.4 shows this field of an item, but not as a number',
    };
    // The check is the compiler's (npm test runs tsc first); these values only repeat what it accepted.
    expect(nutrition.fibre).toMatch(/^section 2.4/);
  });
});
