import { z } from 'zod';
import { formField, numberFromForm } from '../web/form-numbers.js';
import { MEASUREMENT_NAMES, type MeasurementName } from './wellness.schemas.js';

/** A row of the wellness page's table: each measurement as typed. */
export type WellnessForm = Record<MeasurementName, string>;

const formSchema = z.object(
  Object.fromEntries(MEASUREMENT_NAMES.map((name) => [name, formField])) as Record<MeasurementName, typeof formField>,
);

export function readWellnessForm(body: unknown): WellnessForm {
  return formSchema.catch(formSchema.parse({})).parse(body ?? {});
}

/** The form as the JSON the API takes, so one schema (wellness.schemas.ts) validates both: an empty field is a measurement not entered. */
export function wellnessInputFromForm(form: WellnessForm): Record<string, unknown> {
  return Object.fromEntries(
    MEASUREMENT_NAMES.flatMap((name) => (form[name].trim() === '' ? [] : [[name, numberFromForm(form[name])]])),
  );
}
