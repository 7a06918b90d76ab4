import { recordFieldsOf, valuesSentAs } from '../fields/field-values.js';
import type { Documented, NumericFields, ValuesOf } from '../fields/numeric-field.js';
import type { WellnessRecord, WellnessRecordField } from './wellness.service.js';
import { WELLNESS_MEASUREMENTS, type WellnessRecordAsShown } from './wellness.fields.js';

/**
 * The service's wellness record for one local day (section 2.3), for these measurements: `date`,
 * each measurement entered that the declarations send as a field of its own (only fields §2.3 shows
 * can be, wellness.fields.ts), and in rawJson everything entered, kept by the service for
 * reference. A measurement not entered is left out, never sent as null.
 */
export function wellnessRecordOf<const Declarations extends NumericFields>(
  declarations: Declarations & Documented<Declarations, WellnessRecordAsShown>,
) {
  return (date: string, measurements: ValuesOf<Declarations>): WellnessRecord => ({
    date,
    // Checked at compile time (Documented): those sent as a field of their own are §2.3's.
    ...(recordFieldsOf(declarations, measurements) as Partial<Record<WellnessRecordField, number>>),
    rawJson: { source: 'athlete-sync', ...valuesSentAs(declarations, measurements) },
  });
}

/** The record of a day of the app's measurements (wellness.fields.ts), rebuilt from the store when the job runs. */
export const wellnessRecord = wellnessRecordOf(WELLNESS_MEASUREMENTS);
