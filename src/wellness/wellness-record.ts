import type { WellnessRecord, WellnessRecordField } from '../provider/records.js';
import { measurementNames, type Documented, type MeasurementDeclarations, type MeasurementsOf } from './measurement-declaration.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';

/**
 * The service's wellness record for one local day (section 2.3), for these measurements: `date`,
 * each measurement entered that the declarations send as a field of its own (only fields §2.3 shows
 * can be, measurement-declaration.ts), and in rawJson everything entered, kept by the service for
 * reference. A measurement not entered is left out, never sent as null.
 */
export function wellnessRecordOf<const Declarations extends MeasurementDeclarations>(
  declarations: Declarations & Documented<Declarations>,
) {
  const names = measurementNames(declarations);
  // Checked at compile time (Documented): those sent as a field of their own are §2.3's.
  const documented = names.filter((name) => declarations[name].sent === 'record');
  return (date: string, measurements: MeasurementsOf<Declarations>): WellnessRecord => {
    const entered = (list: typeof names): Record<string, number> =>
      Object.fromEntries(
        list.flatMap((name) => {
          const value: number | undefined = measurements[name];
          return value === undefined ? [] : [[name, value]];
        }),
      );
    return {
      date,
      ...(entered(documented) as Partial<Record<WellnessRecordField, number>>),
      rawJson: { source: 'athlete-sync', ...entered(names) },
    };
  };
}

/** The record of a day of the app's measurements (wellness.fields.ts), rebuilt from the store when the job runs. */
export const wellnessRecord = wellnessRecordOf(WELLNESS_MEASUREMENTS);
