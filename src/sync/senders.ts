import type { ActivityFiles } from '../activities/activity-file-store.js';
import { activitySender } from '../activities/activity-sender.js';
import type { Db } from '../db/database.js';
import { nutritionSender } from '../nutrition/nutrition-sender.js';
import type { ServiceApi } from '../provider/api.js';
import { wellnessSender } from '../wellness/wellness-sender.js';
import type { Senders } from './sender.js';

export interface SendersDependencies {
  db: Db;
  api: ServiceApi;
  /** Where the bytes of .fit activities are, and whether they are kept after upload. */
  activityFiles: ActivityFiles;
}

/** Each kind's sender, given what it needs: the only kind-specific part of the sync path. */
export function createSenders({ db, api, activityFiles }: SendersDependencies): Senders {
  return {
    nutrition: nutritionSender({ db, api }),
    wellness: wellnessSender({ db, api }),
    activities: activitySender({ db, api, activityFiles }),
  };
}
