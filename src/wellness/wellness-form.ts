import { z } from 'zod';
import { formColumnsOf, formFieldsOf, formValuesOf, numbersFromForm, type FormInput, type FormOf } from '../fields/field-form.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import type { Measurements } from './wellness.schemas.js';

/**
 * The page's fields of a day, as typed: a field per measurement, and for a duration (sleep) its
 * hours and minutes, as people say it; the API and the service take seconds (§2.3 `sleepSecs`).
 */
export type WellnessForm = FormOf<typeof WELLNESS_MEASUREMENTS>;

/** The columns of the page's table: a measurement's label and its form fields. */
export const FORM_COLUMNS = formColumnsOf(WELLNESS_MEASUREMENTS);

const formSchema = z.object(formFieldsOf(WELLNESS_MEASUREMENTS));

export function readWellnessForm(body: unknown): WellnessForm {
  return formSchema.catch(formSchema.parse({})).parse(body ?? {});
}

/** A day's stored measurements in the form's fields; a duration to the nearest minute. */
export function wellnessFormOf(day: Measurements | undefined): WellnessForm {
  return formValuesOf(WELLNESS_MEASUREMENTS, day);
}

/**
 * The form as the JSON the API takes, so one schema (wellness.schemas.ts) validates both: an
 * empty field is a measurement not entered. A duration's hours and minutes are checked here, as typed.
 */
export function wellnessInputFromForm(form: WellnessForm): FormInput {
  return numbersFromForm(WELLNESS_MEASUREMENTS, form);
}
