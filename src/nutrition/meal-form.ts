import { z } from 'zod';
import { formField, numberFromForm } from '../web/form-numbers.js';
import { amountNames } from './amount-declaration.js';
import { MEAL_AMOUNTS, type AmountName } from './meal.fields.js';

const AMOUNT_NAMES = amountNames(MEAL_AMOUNTS);

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
  ...(Object.fromEntries(AMOUNT_NAMES.map((name) => [name, formField])) as Record<AmountName, typeof formField>),
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
export function mealInputFromForm(form: MealForm): Record<string, unknown> {
  const optional = (value: string) => (value.trim() === '' ? undefined : value);
  return {
    name: form.name,
    carbs: form.carbs.trim() === '' ? undefined : numberFromForm(form.carbs),
    ...Object.fromEntries(AMOUNT_NAMES.map((name) => [name, optional(form[name]) && numberFromForm(form[name])])),
    absorptionType: optional(form.absorptionType),
    logged_at: `${form.date}T${withSeconds(form.time)}`,
  };
}

/**
 * For an edited item: every field is set, and an emptied optional field is removed (null).
 * The time is sent only when it was changed, so editing a meal logged while travelling
 * does not move it into the user's home zone.
 */
export function mealChangesFromForm(form: MealForm): Record<string, unknown> {
  const { logged_at: loggedAt, ...input } = mealInputFromForm(form);
  const orNull = (value: unknown) => value ?? null;
  return {
    ...input,
    ...(form.time !== form.originalTime && { logged_at: loggedAt }),
    ...Object.fromEntries(AMOUNT_NAMES.map((name) => [name, orNull(input[name])])),
    absorptionType: orNull(input.absorptionType),
  };
}
