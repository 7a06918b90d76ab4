import { exactly, type NutritionItem, type NutritionRecord } from '../provider/records.js';
import type { MealItem } from './meal.table.js';

/**
 * The service's nutrition record for one local day (section 2.4), rebuilt from the store when the
 * job runs: the service upserts by date and replaces the day, so the record carries every item
 * (docs/architecture.md, decision 1). Fields the document does not show (protein, fat, kcal, our ids) go into
 * rawJson only; absent optional fields are omitted, never sent as null.
 */
const documentedItem = exactly<NutritionItem>();

export function nutritionRecord(date: string, items: MealItem[]): NutritionRecord {
  return {
    date,
    items: items.map((item) =>
      documentedItem({
        name: item.name,
        carbs: item.carbs,
        logged_at: item.logged_at,
        ...(item.absorption_type !== null && { absorptionType: item.absorption_type }),
      }),
    ),
    rawJson: {
      source: 'athlete-sync',
      items: items.map((item) => ({
        id: item.id,
        ...(item.protein !== null && { protein: item.protein }),
        ...(item.fat !== null && { fat: item.fat }),
        ...(item.kcal !== null && { kcal: item.kcal }),
      })),
    },
  };
}
