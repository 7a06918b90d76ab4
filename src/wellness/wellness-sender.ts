import type { Db } from '../db/database.js';
import { valuesOfRow } from '../fields/field-values.js';
import type { ServiceApi } from '../provider/api.js';
import type { Sender } from '../sync/sender.js';
import { findWellnessDay } from './wellness-day.repository.js';
import { wellnessRecord } from './wellness-record.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import { upsertWellness } from './wellness.service.js';

/** A day deleted here meanwhile is not sent: the service has no delete to send instead (§4.5). */
export function wellnessSender({ db, api }: { db: Db; api: ServiceApi }): Sender {
  return {
    async send({ userId, subject: date }) {
      const day = await findWellnessDay(db, userId, date);
      if (!day) return 'gone';
      await upsertWellness(api, userId, wellnessRecord(date, valuesOfRow(WELLNESS_MEASUREMENTS, day)));
      return 'sent';
    },
  };
}
