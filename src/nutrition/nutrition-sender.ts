import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import type { Sender } from '../sync/sender.js';
import { nutritionRecord } from './day-record.js';
import { mealsOfDay } from './meal.repository.js';
import { upsertNutrition } from './nutrition.service.js';

/** A nutrition day is always sent, even with no items left: the upsert then empties it at the service (§4.6). */
export function nutritionSender({ db, api }: { db: Db; api: ServiceApi }): Sender {
  return {
    async send({ userId, subject: date }) {
      await upsertNutrition(api, userId, nutritionRecord(date, await mealsOfDay(db, userId, date)));
      return 'sent';
    },
  };
}
