import { Router } from 'express';
import { dateRangeSchema } from '../dates/date-range.js';
import type { Db } from '../db/database.js';
import { SYNCED_KINDS } from '../kinds.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { sendInvalidInput } from '../web/invalid-input.js';
import { dailySyncStatuses, syncFactsOf } from './sync-statuses.js';

/**
 * GET /api/sync/status?from=&to= (inclusive): where each changed day's sync stands, of every daily
 * kind, and, for each kind not keyed by date, where the sync of its newest entries stands (under
 * the field its declaration names).
 */
export function syncStatusApi({ db }: { db: Db }): Router {
  const router = Router();
  router.get('/api/sync/status', requireUserApi, async (req, res) => {
    const range = dateRangeSchema.safeParse(req.query);
    if (!range.success) return sendInvalidInput(res, range.error);
    const userId = currentUser(res).id;
    const statuses = await dailySyncStatuses(db, userId, range.data.from, range.data.to);
    const byKind = await Promise.all(
      SYNCED_KINDS.flatMap(({ sync: { status } }) => (status ? [status] : [])).map(async (status) => [
        status.field,
        await status.entries(db, userId),
      ]),
    );
    res.json({
      days: statuses.map((status) => ({ kind: status.kind, ...syncFactsOf(status), date: status.subject })),
      ...Object.fromEntries(byKind),
    });
  });
  return router;
}
