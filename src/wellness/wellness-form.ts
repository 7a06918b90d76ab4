import { z } from 'zod';
import { formField, numberFromForm } from '../web/form-numbers.js';
import { MEASUREMENT_NAMES, MEASUREMENTS, type MeasurementName } from './wellness.schemas.js';

/**
 * The page's fields of a day, as typed. Sleep is typed as hours and minutes, as people say it; the
 * API and the service take seconds (interface document §2.3 `sleepSecs`).
 */
const TYPED_MEASUREMENTS = MEASUREMENT_NAMES.filter((name) => name !== 'sleepSecs');
const SLEEP_FIELDS = ['sleepHours', 'sleepMinutes'] as const;
const WELLNESS_FORM_FIELDS = [...TYPED_MEASUREMENTS, ...SLEEP_FIELDS];

export type WellnessForm = Record<(typeof WELLNESS_FORM_FIELDS)[number], string>;

const formSchema = z.object(
  Object.fromEntries(WELLNESS_FORM_FIELDS.map((name) => [name, formField])) as Record<keyof WellnessForm, typeof formField>,
);

export function readWellnessForm(body: unknown): WellnessForm {
  return formSchema.catch(formSchema.parse({})).parse(body ?? {});
}

/** A day's stored measurements in the form's fields; sleep to the nearest minute. */
export function wellnessFormOf(day: Partial<Record<MeasurementName, number>> | undefined): WellnessForm {
  const shown = (value: number | undefined) => (value === undefined ? '' : String(value));
  const minutes = day?.sleepSecs === undefined ? undefined : Math.round(day.sleepSecs / 60);
  return {
    ...(Object.fromEntries(TYPED_MEASUREMENTS.map((name) => [name, shown(day?.[name])])) as Record<(typeof TYPED_MEASUREMENTS)[number], string>),
    sleepHours: shown(minutes === undefined ? undefined : Math.floor(minutes / 60)),
    sleepMinutes: shown(minutes === undefined ? undefined : minutes % 60),
  };
}

const MAX_SLEEP_HOURS = MEASUREMENTS.sleepSecs.max / 3600;

/** A part of the sleep typed as a whole number; an empty part is none of it (8 hours and no minutes). */
const sleepPart = (unit: string, max: number) => {
  const error = `must be a whole number of ${unit} from 0 to ${max}`;
  return z.preprocess((typed: string) => (typed.trim() === '' ? 0 : numberFromForm(typed)), z.int({ error }).min(0, { error }).max(max, { error }));
};

const sleepSchema = z
  .object({ sleepHours: sleepPart('hours', MAX_SLEEP_HOURS), sleepMinutes: sleepPart('minutes', 59) })
  .transform(({ sleepHours, sleepMinutes }) => (sleepHours * 60 + sleepMinutes) * 60)
  .refine((seconds) => seconds <= MEASUREMENTS.sleepSecs.max, { error: `can be ${MAX_SLEEP_HOURS} hours at most`, path: ['sleepSecs'] });

/**
 * The form as the JSON the API takes, so one schema (wellness.schemas.ts) validates both: an
 * empty field is a measurement not entered. Sleep's hours and minutes are checked here, as typed.
 */
export function wellnessInputFromForm(form: WellnessForm): { ok: true; input: Record<string, unknown> } | { ok: false; refusal: z.ZodError } {
  const typed = TYPED_MEASUREMENTS.flatMap((name) => (form[name].trim() === '' ? [] : [[name, numberFromForm(form[name])] as const]));
  if (form.sleepHours.trim() === '' && form.sleepMinutes.trim() === '') return { ok: true, input: Object.fromEntries(typed) };
  const sleep = sleepSchema.safeParse(form);
  if (!sleep.success) return { ok: false, refusal: sleep.error };
  return { ok: true, input: { ...Object.fromEntries(typed), sleepSecs: sleep.data } };
}
