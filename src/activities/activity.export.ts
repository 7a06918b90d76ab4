import { exportArray, personRows } from '../accounts/export-pieces.js';
import type { Db } from '../db/database.js';
import { activityViews } from './activities.js';

/** The person's activities, each with the address of its stored .fit file, in the account's export. */
export async function* activitiesExport(db: Db, userId: number): AsyncGenerator<string> {
  yield* exportArray('activities', activityBatches(db, userId));
}

async function* activityBatches(db: Db, userId: number): AsyncGenerator<unknown[]> {
  for await (const activities of personRows(db, 'activities', 'id', userId)) {
    const views = await activityViews(db, userId, activities);
    yield views.map((view) => ({ ...view, file: view.fileStored ? `/api/activities/${view.id}/file` : null }));
  }
}
