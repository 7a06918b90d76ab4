import { activitySender } from '../activities/activity-sender.js';
import { nutritionSender } from '../nutrition/nutrition-sender.js';
import { wellnessSender } from '../wellness/wellness-sender.js';
import type { Sender } from './sender.js';
import type { SyncKind } from './sync-kinds.js';

/** Each kind's sender: the only kind-specific part of the sync path. */
export const SENDERS: Record<SyncKind, Sender> = {
  nutrition: nutritionSender,
  wellness: wellnessSender,
  activities: activitySender,
};
