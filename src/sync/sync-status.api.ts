import { Router } from 'express';
import { newestActivityViews } from '../activities/activities.js';
import { dateRangeSchema } from '../dates/date-range.js';
import type { Db } from '../db/database.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { sendInvalidInput } from '../web/invalid-input.js';
import { dailySyncStatuses, syncFactsOf } from './outbox.js';

/**
 * GET /api/sync/status?from=&to= (inclusive): where each changed day's sync stands, of every daily
 * kind, and the upload of each of the user's newest activities (newestActivityViews).
 */
export function syncStatusApi({ db }: { db: Db }): Router {
  const router = Router();
  router.get('/api/sync/status', requireUserApi, async (req, res) => {
    const range = dateRangeSchema.safeParse(req.query);
    if (!range.success) return sendInvalidInput(res, range.error);
    const userId = currentUser(res).id;
    const statuses = await dailySyncStatuses(db, userId, range.data.from, range.data.to);
    res.json({
      days: statuses.map((status) => ({ kind: status.kind, ...syncFactsOf(status), date: status.subject })),
      activities: (await newestActivityViews(db, userId)).map(({ id, name, sha256, sync }) => ({ id, name, sha256, ...sync })),
    });
  });
  return router;
}
