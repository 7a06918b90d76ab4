import { z } from 'zod';
import { formField, numberFromForm } from '../web/form-numbers.js';
import { measurementNames, type MeasurementDeclaration } from './measurement-declaration.js';
import { WELLNESS_MEASUREMENTS, type MeasurementName } from './wellness.fields.js';
import type { Measurements } from './wellness.schemas.js';

/**
 * The page's fields of a day, as typed: a field per measurement, and for a duration (sleep) its
 * hours and minutes, as people say it; the API and the service take seconds (§2.3 `sleepSecs`).
 */
type Declared = typeof WELLNESS_MEASUREMENTS;
type FormFieldsOf<Name extends MeasurementName> = Declared[Name] extends { typedAs: { hours: infer Hours; minutes: infer Minutes } }
  ? Hours | Minutes
  : Name;
export type WellnessFormField = { [Name in MeasurementName]: FormFieldsOf<Name> }[MeasurementName];
export type WellnessForm = Record<WellnessFormField, string>;

const NAMES = measurementNames(WELLNESS_MEASUREMENTS);
const declared = (name: MeasurementName): MeasurementDeclaration => WELLNESS_MEASUREMENTS[name];

/** A column of the page's table: a measurement's label and its form fields (one, or a duration's hours and minutes). */
export interface FormColumn {
  measurement: MeasurementName;
  label: string;
  fields: Array<{ name: WellnessFormField; label: string; unit?: string }>;
}

export const FORM_COLUMNS: FormColumn[] = NAMES.map((name) => {
  const { label, typedAs } = declared(name);
  if (typedAs === undefined) return { measurement: name, label, fields: [{ name: name as WellnessFormField, label }] };
  return {
    measurement: name,
    label,
    fields: [
      { name: typedAs.hours as WellnessFormField, label: `${label} hours`, unit: 'h' },
      { name: typedAs.minutes as WellnessFormField, label: `${label} minutes`, unit: 'min' },
    ],
  };
});

const formSchema = z.object(Object.fromEntries(FORM_COLUMNS.flatMap((column) => column.fields).map((field) => [field.name, formField])));

export function readWellnessForm(body: unknown): WellnessForm {
  return formSchema.catch(formSchema.parse({})).parse(body ?? {}) as WellnessForm;
}

/** A day's stored measurements in the form's fields; a duration to the nearest minute. */
export function wellnessFormOf(day: Measurements | undefined): WellnessForm {
  const shown = (value: number | undefined) => (value === undefined ? '' : String(value));
  const fields = NAMES.flatMap((name) => {
    const value = day?.[name];
    const { typedAs } = declared(name);
    if (typedAs === undefined) return [[name, shown(value)]];
    const minutes = value === undefined ? undefined : Math.round(value / 60);
    return [
      [typedAs.hours, shown(minutes === undefined ? undefined : Math.floor(minutes / 60))],
      [typedAs.minutes, shown(minutes === undefined ? undefined : minutes % 60)],
    ];
  });
  return Object.fromEntries(fields) as WellnessForm;
}

/** A part of a duration typed as a whole number; an empty part is none of it (8 hours and no minutes). */
const durationPart = (unit: string, max: number) => {
  const error = `must be a whole number of ${unit} from 0 to ${max}`;
  return z.preprocess(
    (typed: string) => (typed.trim() === '' ? 0 : numberFromForm(typed)),
    z.int({ error }).min(0, { error }).max(max, { error }),
  );
};

/** A duration's hours and minutes as seconds, checked as typed. */
function durationSchema(
  name: MeasurementName,
  { max, typedAs }: MeasurementDeclaration & Required<Pick<MeasurementDeclaration, 'typedAs'>>,
) {
  const maxHours = Math.floor(max / 3600);
  return z
    .object({ [typedAs.hours]: durationPart('hours', maxHours), [typedAs.minutes]: durationPart('minutes', 59) })
    .transform((parts) => ((parts[typedAs.hours] ?? 0) * 60 + (parts[typedAs.minutes] ?? 0)) * 60)
    .refine((seconds) => seconds <= max, { error: `can be ${maxHours} hours at most`, path: [name] });
}

/**
 * The form as the JSON the API takes, so one schema (wellness.schemas.ts) validates both: an
 * empty field is a measurement not entered. A duration's hours and minutes are checked here, as typed.
 */
export function wellnessInputFromForm(
  form: WellnessForm,
): { ok: true; input: Record<string, unknown> } | { ok: false; refusal: z.ZodError } {
  const typed: Record<string, string> = form;
  const input: Record<string, unknown> = {};
  for (const name of NAMES) {
    const declaration = declared(name);
    const { typedAs } = declaration;
    if (typedAs === undefined) {
      if (typed[name]!.trim() !== '') input[name] = numberFromForm(typed[name]!);
      continue;
    }
    if (typed[typedAs.hours]!.trim() === '' && typed[typedAs.minutes]!.trim() === '') continue;
    const duration = durationSchema(name, { ...declaration, typedAs }).safeParse(form);
    if (!duration.success) return { ok: false, refusal: duration.error };
    input[name] = duration.data;
  }
  return { ok: true, input };
}
