import { z } from 'zod';
import { formField, numberFromForm } from './form-numbers.js';
import type { FieldWords } from '../web/form-problems.js';
import { fieldNames } from './field-values.js';
import type { NumericField, NumericFields, ValuesOf } from './numeric-field.js';

/**
 * The page's form fields of declared numbers, as typed: a field per number, and for a duration its
 * hours and minutes, as people say it (the API and the service take seconds).
 */
export type FormFieldOf<Fields> = {
  [Name in keyof Fields]: Fields[Name] extends { typedAs: { hours: infer Hours; minutes: infer Minutes } } ? Hours | Minutes : Name;
}[keyof Fields] &
  string;

export type FormOf<Fields> = Record<FormFieldOf<Fields>, string>;

/** A declared number on the page: its label and its form fields (one, or a duration's hours and minutes). */
export interface FormColumn<Fields> {
  name: keyof Fields & string;
  label: string;
  fields: Array<{ name: FormFieldOf<Fields>; label: string; unit?: string }>;
}

export function formColumnsOf<Fields extends NumericFields<string>>(fields: Fields): Array<FormColumn<Fields>> {
  return fieldNames(fields).map((name) => {
    const { label, typedAs } = fields[name]!;
    if (typedAs === undefined) return { name, label, fields: [{ name: name as FormFieldOf<Fields>, label }] };
    return {
      name,
      label,
      fields: [
        { name: typedAs.hours as FormFieldOf<Fields>, label: `${label} hours`, unit: 'h' },
        { name: typedAs.minutes as FormFieldOf<Fields>, label: `${label} minutes`, unit: 'min' },
      ],
    };
  });
}

/**
 * How a page's refusals name the declared numbers: each by its label or its words ("HRV (ms)",
 * "Protein"), told next to its form field (a duration's first); a duration's hours and minutes by
 * their own labels.
 */
export function formWordsOf<Fields extends NumericFields<string>>(fields: Fields, namedBy: 'label' | 'words'): Record<string, FieldWords> {
  return Object.fromEntries(
    formColumnsOf(fields).flatMap(({ name, fields: typed }): Array<[string, FieldWords]> => [
      [name, { label: fields[name]![namedBy], input: typed[0]!.name }],
      ...(typed.length > 1 ? typed.map((field): [string, FieldWords] => [field.name, { label: field.label, input: field.name }]) : []),
    ]),
  );
}

/** The form fields' part of a form's schema: each one text, empty when missing or sent twice. */
export function formFieldsOf<Fields extends NumericFields<string>>(fields: Fields): Record<FormFieldOf<Fields>, typeof formField> {
  const names = formColumnsOf(fields).flatMap((column) => column.fields.map((field) => field.name));
  return Object.fromEntries(names.map((name) => [name, formField])) as Record<FormFieldOf<Fields>, typeof formField>;
}

/** Stored values in the form's fields, empty for one not given; a duration to the nearest minute. */
export function formValuesOf<Fields extends NumericFields<string>>(fields: Fields, values: ValuesOf<Fields> | undefined): FormOf<Fields> {
  const shown = (value: number | undefined) => (value === undefined ? '' : String(value));
  const typed = fieldNames(fields).flatMap((name) => {
    const value = values?.[name];
    const { typedAs } = fields[name]!;
    if (typedAs === undefined) return [[name, shown(value)]];
    const minutes = value === undefined ? undefined : Math.round(value / 60);
    return [
      [typedAs.hours, shown(minutes === undefined ? undefined : Math.floor(minutes / 60))],
      [typedAs.minutes, shown(minutes === undefined ? undefined : minutes % 60)],
    ];
  });
  return Object.fromEntries(typed) as FormOf<Fields>;
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
function durationSchema(name: string, { max, typedAs }: Extract<NumericField<string>, { typedAs: object }>) {
  const maxHours = Math.floor(max / 3600);
  return z
    .object({ [typedAs.hours]: durationPart('hours', maxHours), [typedAs.minutes]: durationPart('minutes', 59) })
    .transform((parts) => ((parts[typedAs.hours] ?? 0) * 60 + (parts[typedAs.minutes] ?? 0)) * 60)
    .refine((seconds) => seconds <= max, { error: `can be ${maxHours} hours at most`, path: [name] });
}

/**
 * A form as the JSON the API takes, and why parts of it were refused as typed (a duration's hours
 * or minutes): the rest still goes through the schema, so the person is told every problem at once.
 */
export type FormInput = { ok: true; input: Record<string, unknown> } | { ok: false; refusal: z.ZodError; input: Record<string, unknown> };

/**
 * The form's numbers as the JSON the API takes, so one schema validates both: an empty field is a
 * number not given (absent), and anything typed is a number if it reads as one (form-numbers.ts),
 * left as text otherwise for the schema to refuse, naming the field. A duration's hours and minutes
 * are checked here, as typed.
 */
export function numbersFromForm<Fields extends NumericFields<string>>(fields: Fields, form: FormOf<Fields>): FormInput {
  const typed: Record<string, string> = form;
  const input: Record<string, number | string> = {};
  const refused: z.core.$ZodIssue[] = [];
  for (const name of fieldNames(fields)) {
    const field = fields[name]!;
    if (field.typedAs === undefined) {
      if (typed[name]!.trim() !== '') input[name] = numberFromForm(typed[name]!);
      continue;
    }
    if (typed[field.typedAs.hours]!.trim() === '' && typed[field.typedAs.minutes]!.trim() === '') continue;
    const duration = durationSchema(name, field).safeParse(form);
    if (duration.success) {
      input[name] = duration.data;
    } else {
      refused.push(...duration.error.issues);
      // Text, which the schema refuses too: the duration counts as given, and formProblemsOf tells it once, in its own words.
      input[name] = typed[field.typedAs.hours]!;
    }
  }
  return refused.length === 0 ? { ok: true, input } : { ok: false, refusal: new z.ZodError(refused), input };
}

/** A form's input through the API's schema: every problem at once, those of the parts refused as typed first. */
export function parseFormInput<Output>(typed: FormInput, schema: z.ZodType<Output>) {
  const parsed = schema.safeParse(typed.input);
  if (typed.ok) return parsed;
  return { success: false as const, error: new z.ZodError([...typed.refusal.issues, ...(parsed.success ? [] : parsed.error.issues)]) };
}
