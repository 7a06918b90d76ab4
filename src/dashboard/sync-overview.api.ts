import { Router } from 'express';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { dateStyleOf } from '../web/locale.js';
import { syncOverview } from './sync-overview.js';

/**
 * GET /api/sync/overview: the dashboard's sync overview (sync-overview.ts) in the person's words,
 * polled by the dashboard while anything waits (views/assets/sync-overview.js).
 */
export function syncOverviewApi({ db, clock }: { db: Db; clock: () => Date }): Router {
  const router = Router();
  router.get('/api/sync/overview', requireUserApi, async (req, res) => {
    const user = currentUser(res);
    const connection = await findConnection(db, user.id);
    res.json(await syncOverview(db, user, connection, clock(), dateStyleOf(req)));
  });
  return router;
}
