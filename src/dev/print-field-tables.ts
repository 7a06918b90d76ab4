import { MEAL_AMOUNTS } from '../nutrition/meal.fields.js';
import { WELLNESS_MEASUREMENTS } from '../wellness/wellness.fields.js';
import { amountTable, measurementTable } from './field-tables.js';

/** `npm run fields`: the fields a client may send, read from their declarations. */
console.log(
  `## Meal item amounts\n\n${amountTable(MEAL_AMOUNTS)}\n\n## Wellness measurements\n\n${measurementTable(WELLNESS_MEASUREMENTS)}`,
);
