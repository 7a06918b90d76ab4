import { z } from 'zod';

/**
 * What a human body can measure (interface document §2.3 gives the units, not the bounds): a value
 * outside these is a typing mistake, refused rather than sent. `integer` where §2.3 says integer.
 */
export const MEASUREMENTS = {
  hrv: { label: 'HRV (ms)', unit: 'milliseconds', min: 1, max: 500, integer: false },
  restingHr: { label: 'Resting HR (bpm)', unit: 'beats per minute', min: 20, max: 250, integer: true },
  sleepSecs: { label: 'Sleep (s)', unit: 'seconds', min: 0, max: 86_400, integer: true },
  weight: { label: 'Weight (kg)', unit: 'kilograms', min: 20, max: 400, integer: false },
  vo2max: { label: 'VO2 max (ml/kg/min)', unit: 'ml/kg/min', min: 10, max: 100, integer: false },
} as const;

export type MeasurementName = keyof typeof MEASUREMENTS;

export const MEASUREMENT_NAMES = Object.keys(MEASUREMENTS) as MeasurementName[];

function measurementSchema({ unit, min, max, integer }: (typeof MEASUREMENTS)[MeasurementName]) {
  const error = `must be ${integer ? 'a whole number' : 'a number'} of ${unit} from ${min} to ${max}`;
  return (integer ? z.int({ error }) : z.number({ error })).min(min, { error }).max(max, { error }).optional();
}

/**
 * The body of PUT /api/wellness/:date: the whole record of the day. A measurement not entered is
 * absent (null is refused, not stored); unknown fields are refused; a record needs one measurement.
 */
export const wellnessInputSchema = z
  .strictObject({
    hrv: measurementSchema(MEASUREMENTS.hrv),
    restingHr: measurementSchema(MEASUREMENTS.restingHr),
    sleepSecs: measurementSchema(MEASUREMENTS.sleepSecs),
    weight: measurementSchema(MEASUREMENTS.weight),
    vo2max: measurementSchema(MEASUREMENTS.vo2max),
  })
  .refine((record) => MEASUREMENT_NAMES.some((name) => record[name] !== undefined), {
    error: `must hold at least one of ${MEASUREMENT_NAMES.join(', ')}`,
  });

export type Measurements = z.infer<typeof wellnessInputSchema>;
