import { exportArray, personRows } from '../accounts/export-pieces.js';
import type { Db } from '../db/database.js';
import { wellnessRecordView } from './wellness.js';

/** The person's wellness days, in the account's export. */
export async function* wellnessExport(db: Db, userId: number): AsyncGenerator<string> {
  yield* exportArray('wellness', wellnessBatches(db, userId));
}

async function* wellnessBatches(db: Db, userId: number): AsyncGenerator<unknown[]> {
  for await (const days of personRows(db, 'wellness_days', 'date', userId)) yield days.map(wellnessRecordView);
}
