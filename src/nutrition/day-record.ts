import { exactly } from '../provider/records.js';
import type { NutritionItem, NutritionRecord } from './nutrition.service.js';
import { recordFieldsOf, valuesOfRow, valuesSentAs } from '../fields/field-values.js';
import { MEAL_AMOUNTS } from './meal.fields.js';
import type { MealItem } from './meal.table.js';

/** An item as section 2.4 shows it: a field it does not show is a compile error, even spread in. */
const documentedItem = exactly<NutritionItem>();

/**
 * The service's nutrition record for one local day (section 2.4), rebuilt from the store when the
 * job runs: the service upserts by date and replaces the day, so the record carries every item
 * (docs/architecture.md, decision 1). Fields the document does not show (the amounts declared sent
 * in rawJson, meal.fields.ts, and our ids) go into rawJson only; absent optional fields are
 * omitted, never sent as null.
 */
export function nutritionRecord(date: string, items: MealItem[]): NutritionRecord {
  const amountsOf = (item: MealItem) => valuesOfRow(MEAL_AMOUNTS, item);
  return {
    date,
    items: items.map((item) =>
      documentedItem({
        name: item.name,
        carbs: item.carbs,
        logged_at: item.logged_at,
        ...(item.absorption_type !== null && { absorptionType: item.absorption_type }),
        ...recordFieldsOf(MEAL_AMOUNTS, amountsOf(item)),
      }),
    ),
    rawJson: {
      source: 'athlete-sync',
      items: items.map((item) => ({ id: item.id, ...valuesSentAs(MEAL_AMOUNTS, amountsOf(item), 'rawJson') })),
    },
  };
}
