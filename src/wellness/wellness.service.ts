import type { ServiceApi } from '../provider/api.js';
import type { NumberType, RawJson } from '../provider/records.js';

/** Section 2.3: the measurements a wellness record may carry besides `date` and `rawJson`. */
export const WELLNESS_RECORD_FIELDS = {
  hrv: 'number',
  restingHr: 'integer',
  sleepSecs: 'integer',
  weight: 'number',
  vo2max: 'number',
} as const satisfies Record<string, NumberType>;

export type WellnessRecordField = keyof typeof WELLNESS_RECORD_FIELDS;

/** Section 2.3; a measurement not taken is absent, never null. */
export type WellnessRecord = { date: string; rawJson: RawJson } & { [Field in WellnessRecordField]?: number };

/** Upserts the person's day of wellness (§4.5). */
export async function upsertWellness(api: ServiceApi, userId: number, record: WellnessRecord): Promise<void> {
  await api.postJson(userId, '/api/wellness', record);
}
