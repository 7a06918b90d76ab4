import { declareMeasurements } from './measurement-declaration.js';

/**
 * Every wellness measurement, in the order the page shows them (measurement-declaration.ts says
 * what each part does). A new one is an entry here and a migration adding its column; the API, the
 * page, the store and the record sent take it from here. Units are §2.3's; the bounds are ours.
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

export type MeasurementName = keyof typeof WELLNESS_MEASUREMENTS;
