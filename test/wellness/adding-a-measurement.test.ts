import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/provider/service-error.js';
import { wellnessRecordOf } from '../../src/wellness/wellness-record.js';
import { declareMeasurements, WELLNESS_MEASUREMENTS } from '../../src/wellness/wellness.fields.js';
import { measurementsSchemaOf } from '../../src/wellness/wellness.schemas.js';
import { upsertWellness, type WellnessRecord } from '../../src/wellness/wellness.service.js';
import { connectedUser } from '../helpers/flows.js';
import { declaredColumnProblems, declaredColumns } from '../helpers/declared-columns.js';
import { startStack, type Stack } from '../helpers/stack.js';
import * as addExampleWater from './fixtures/add-example-water-migration.js';

/**
 * A partner adapting the template: a hydration tracker adds its daily water to wellness with one
 * declaration and one migration (fixtures/add-example-water-migration.ts; named so that no partner's own measurement meets it). Section 2.3 does not show
 * such a field, so it is sent inside rawJson; a field §2.3 shows is sent as its own.
 */
const EXAMPLE_WATER = {
  column: 'example_water_ml',
  label: 'Water (ml)',
  words: 'water',
  unit: 'millilitres',
  min: 0,
  max: 10_000,
  integer: true,
  sent: 'rawJson',
} as const;

const withExampleWater = declareMeasurements({ ...WELLNESS_MEASUREMENTS, exampleWaterMl: EXAMPLE_WATER });

let stack: Stack;

beforeAll(async () => {
  // The test stack's sandbox refuses a field the interface document does not show (strictFields).
  stack = await startStack({ sandbox: { autoApprove: 'Hana' } });
});
afterAll(async () => {
  await stack.close();
});

const DATE = '2026-11-20';

async function sentToTheService(record: WellnessRecord): Promise<unknown> {
  const { userId } = await connectedUser(stack);
  await upsertWellness(stack.serviceApi(), userId, record);
  return (await stack.sandboxState()).athletes.Hana?.wellness?.[DATE]?.payload;
}

describe('a measurement the interface document does not show, declared sent in rawJson', () => {
  it('is taken by the API schema within its bounds, and refused beyond them', () => {
    const schema = measurementsSchemaOf(withExampleWater);
    expect(schema.parse({ exampleWaterMl: 1500 })).toEqual({ exampleWaterMl: 1500 });
    expect(schema.safeParse({ exampleWaterMl: 10_001 }).error?.issues[0]).toMatchObject({
      path: ['exampleWaterMl'],
      message: 'must be a whole number of millilitres from 0 to 10000',
    });
  });

  it('reaches the service inside rawJson only, and the strict sandbox takes the request', async () => {
    const record = wellnessRecordOf(withExampleWater)(DATE, { hrv: 48.5, exampleWaterMl: 1500 });
    expect(record).toEqual({ date: DATE, hrv: 48.5, rawJson: { source: 'athlete-sync', hrv: 48.5, exampleWaterMl: 1500 } });
    expect(await sentToTheService(record)).toEqual(record);
  });

  it('cannot be declared as a field of its own: the compiler refuses it', () => {
    const declared = declareMeasurements({
      ...WELLNESS_MEASUREMENTS,
      // @ts-expect-error section 2.3 does not show exampleWaterMl
      exampleWaterMl: { ...EXAMPLE_WATER, sent: 'record' },
    });
    expect(declared.exampleWaterMl.sent).toBe('record');
  });

  it('is refused by the service the tests run, naming it, when sent as a field of its own anyway', async () => {
    const forced = { date: DATE, exampleWaterMl: 1500, rawJson: {} } as WellnessRecord;
    const refusal = await sentToTheService(forced).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({
      kind: 'permanent',
      message: expect.stringContaining('exampleWaterMl: is not a field the interface document shows'),
    });
  });

  it('has a column once its migration ran, and is named while it has none', async () => {
    const db = stack.db;
    expect(await declaredColumnProblems(db, 'wellness_days', declaredColumns(withExampleWater))).toEqual([
      'exampleWaterMl: wellness_days has no column example_water_ml: add a migration that adds it',
    ]);
    await addExampleWater.up(db);
    try {
      expect(await declaredColumnProblems(db, 'wellness_days', declaredColumns(withExampleWater))).toEqual([]);
    } finally {
      await addExampleWater.down(db);
    }
  });
});

describe('a measurement section 2.3 shows, declared sent as its own field', () => {
  it('reaches the service as a field of the record, and in rawJson', async () => {
    const { vo2max, ...withoutVo2max } = WELLNESS_MEASUREMENTS;
    const added = declareMeasurements({ ...withoutVo2max, vo2max });
    const record = wellnessRecordOf(added)(DATE, { vo2max: 55.5 });
    expect(record).toEqual({ date: DATE, vo2max: 55.5, rawJson: { source: 'athlete-sync', vo2max: 55.5 } });
    expect(await sentToTheService(record)).toEqual(record);
  });

  it('must be a whole number where section 2.3 says integer: the compiler refuses it otherwise', () => {
    // @ts-expect-error section 2.3 says restingHr is an integer
    const declared = declareMeasurements({ restingHr: { ...WELLNESS_MEASUREMENTS.restingHr, integer: false } });
    expect(declared.restingHr.integer).toBe(false);
  });
});
