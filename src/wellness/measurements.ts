import type { WellnessDay, WellnessDayTable } from './wellness-day.table.js';
import { MEASUREMENT_NAMES, type MeasurementName, type Measurements } from './wellness.schemas.js';

const COLUMNS = {
  hrv: 'hrv',
  restingHr: 'resting_hr',
  sleepSecs: 'sleep_secs',
  weight: 'weight',
  vo2max: 'vo2max',
} as const satisfies Record<MeasurementName, keyof WellnessDayTable>;

type MeasurementColumns = { [Name in MeasurementName as (typeof COLUMNS)[Name]]: number | null };

/** The measurements as stored: a measurement not entered is null in its column. */
export function measurementColumns(measurements: Measurements): MeasurementColumns {
  return Object.fromEntries(MEASUREMENT_NAMES.map((name) => [COLUMNS[name], measurements[name] ?? null])) as MeasurementColumns;
}

/** The measurements of a stored day; one not entered is absent, never null. */
export function measurementsOf(day: WellnessDay): Measurements {
  return Object.fromEntries(
    MEASUREMENT_NAMES.flatMap((name) => {
      const value = day[COLUMNS[name]];
      return value === null ? [] : [[name, value] as const];
    }),
  );
}

export function sameMeasurements(day: WellnessDay, measurements: Measurements): boolean {
  const columns = measurementColumns(measurements);
  return MEASUREMENT_NAMES.every((name) => day[COLUMNS[name]] === columns[COLUMNS[name]]);
}
