import { measurementNames } from './measurement-declaration.js';
import type { MeasurementColumns, WellnessDay } from './wellness-day.table.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import type { Measurements } from './wellness.schemas.js';

const NAMES = measurementNames(WELLNESS_MEASUREMENTS);

const columnOf = (name: (typeof NAMES)[number]) => WELLNESS_MEASUREMENTS[name].column;

/** The measurements as stored: a measurement not entered is null in its column. */
export function measurementColumns(measurements: Measurements): MeasurementColumns {
  return Object.fromEntries(NAMES.map((name) => [columnOf(name), measurements[name] ?? null])) as MeasurementColumns;
}

/** The measurements of a stored day; one not entered is absent, never null. */
export function measurementsOf(day: WellnessDay): Measurements {
  return Object.fromEntries(NAMES.flatMap((name) => (day[columnOf(name)] === null ? [] : [[name, day[columnOf(name)]]])));
}

export function sameMeasurements(day: WellnessDay, measurements: Measurements): boolean {
  const columns = measurementColumns(measurements);
  return NAMES.every((name) => day[columnOf(name)] === columns[columnOf(name)]);
}
