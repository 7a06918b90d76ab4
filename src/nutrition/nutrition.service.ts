import type { ServiceApi } from '../provider/api.js';
import type { RawJson } from '../provider/records.js';

/** Section 2.4, the item fields shown. */
export interface NutritionItem {
  name: string;
  carbs: number;
  logged_at: string;
  absorptionType?: string;
}

/** Section 2.4. */
export interface NutritionRecord {
  date: string;
  items: NutritionItem[];
  rawJson: RawJson;
}

/** Upserts the person's day of nutrition (§4.6): the day's items replace those the service held. */
export async function upsertNutrition(api: ServiceApi, userId: number, record: NutritionRecord): Promise<void> {
  await api.postJson(userId, '/api/nutrition', record);
}
