import { MEAL_AMOUNT_FIELDS } from '../nutrition/meal.fields.js';
import { WELLNESS_MEASUREMENT_FIELDS } from '../wellness/wellness.fields.js';
import { fieldTables } from './field-tables.js';

/** `npm run fields`: the fields a client may send, read from their declarations. */
console.log(fieldTables([MEAL_AMOUNT_FIELDS, WELLNESS_MEASUREMENT_FIELDS]));
