import { z } from 'zod';
import { formFieldsOf, numbersFromForm, type FormInput } from '../fields/field-form.js';
import { fieldNames } from '../fields/field-values.js';
import { formField, numberFromForm } from '../fields/form-numbers.js';
import { MEAL_AMOUNTS } from './meal.fields.js';

/**
 * The meal page's form fields, turned into the JSON the API takes, so one schema (meal.schemas.ts)
 * validates both. The page asks for a time of day on the page's date: wall time in the user's zone.
 * A field missing or sent twice reads as empty, and the other fields keep what was typed.
 */
const formSchema = z.object({
  date: formField,
  time: formField,
  name: formField,
  carbs: formField,
  ...formFieldsOf(MEAL_AMOUNTS),
  absorptionType: formField,
  /** On the edit form: the item's time as shown, so an unchanged time keeps the item's own offset. */
  originalTime: formField,
});

export type MealForm = z.infer<typeof formSchema>;

export function readMealForm(body: unknown): MealForm {
  return formSchema.catch(formSchema.parse({})).parse(body ?? {});
}

const withSeconds = (time: string) => (/^\d{2}:\d{2}$/.test(time) ? `${time}:00` : time);

/** For a new item: empty optional fields are left out. */
export function mealInputFromForm(form: MealForm): FormInput {
  const amounts = numbersFromForm(MEAL_AMOUNTS, form);
  const optional = (value: string) => (value.trim() === '' ? undefined : value);
  const input = {
    name: form.name,
    carbs: form.carbs.trim() === '' ? undefined : numberFromForm(form.carbs),
    ...amounts.input,
    absorptionType: optional(form.absorptionType),
    logged_at: `${form.date}T${withSeconds(form.time)}`,
  };
  return { ...amounts, input };
}

/**
 * For an edited item: every field is set, and an emptied optional field is removed (null).
 * The time is sent only when it was changed, so editing a meal logged while travelling
 * does not move it into the user's home zone.
 */
export function mealChangesFromForm(form: MealForm): FormInput {
  const typed = mealInputFromForm(form);
  const { logged_at: loggedAt, ...input } = typed.input;
  const orNull = (value: unknown) => value ?? null;
  const changes = {
    ...input,
    ...(form.time !== form.originalTime && { logged_at: loggedAt }),
    ...Object.fromEntries(fieldNames(MEAL_AMOUNTS).map((name) => [name, orNull(input[name])])),
    absorptionType: orNull(input.absorptionType),
  };
  return { ...typed, input: changes };
}
