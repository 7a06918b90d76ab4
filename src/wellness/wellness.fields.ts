import { numericFields, type FieldSet } from '../fields/numeric-field.js';
import type { WELLNESS_RECORD_FIELDS, WellnessRecord, WellnessRecordField } from './wellness.service.js';

/** What section 2.3 shows of a wellness record, which a measurement declared `sent: 'record'` must be. */
export type WellnessRecordAsShown = {
  record: WellnessRecord;
  integers: {
    [Field in WellnessRecordField]: (typeof WELLNESS_RECORD_FIELDS)[Field] extends 'integer' ? Field : never;
  }[WellnessRecordField];
  section: 'section 2.3';
  field: 'this field';
};

/**
 * Declares wellness measurements (src/fields/numeric-field.ts says what each part does), checked
 * against section 2.3: a measurement it does not show, declared `sent: 'record'`, fails, saying so.
 */
export const declareMeasurements = numericFields<WellnessRecordAsShown>();

/**
 * Every wellness measurement, in the order the page shows them. A new one is an entry here and a
 * migration adding its column; the API, the page, the store and the record sent take it from here.
 * Units are §2.3's; the bounds are ours: those of a human body, outside which a value is a typing
 * mistake, refused rather than sent.
 */
export const WELLNESS_MEASUREMENTS = declareMeasurements({
  hrv: { column: 'hrv', label: 'HRV (ms)', words: 'HRV', unit: 'milliseconds', min: 1, max: 500, integer: false, sent: 'record' },
  restingHr: {
    column: 'resting_hr',
    label: 'Resting HR (bpm)',
    words: 'resting heart rate',
    unit: 'beats per minute',
    min: 20,
    max: 250,
    integer: true,
    sent: 'record',
  },
  sleepSecs: {
    column: 'sleep_secs',
    label: 'Sleep',
    words: 'sleep',
    unit: 'seconds',
    min: 0,
    max: 86_400,
    integer: true,
    sent: 'record',
    typedAs: { hours: 'sleepHours', minutes: 'sleepMinutes' },
  },
  weight: { column: 'weight', label: 'Weight (kg)', words: 'weight', unit: 'kilograms', min: 20, max: 400, integer: false, sent: 'record' },
  vo2max: {
    column: 'vo2max',
    label: 'VO2 max (ml/kg/min)',
    words: 'VO2 max',
    unit: 'ml/kg/min',
    min: 10,
    max: 100,
    integer: false,
    sent: 'record',
  },
});

export const WELLNESS_MEASUREMENT_FIELDS: FieldSet = { title: 'Wellness measurements', fields: WELLNESS_MEASUREMENTS, limitVariables: {} };
