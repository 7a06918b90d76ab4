import { Router, type Express, type RequestHandler } from 'express';
import type { User } from '../accounts/user.table.js';
import { LANES, type SyncQueues } from '../sync/queue.js';
import { parseJsonBody } from '../web/request-guards.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

export interface QueueDashboardSettings {
  queues: SyncQueues;
  /** ADMIN_EMAILS, lower-cased. */
  adminEmails: string[];
  /** ADMIN_QUEUE_ACTIONS: retry, clean, pause, remove; otherwise Bull Board answers 405 to each. */
  allowActions: boolean;
}

/**
 * Bull Board for the accounts in ADMIN_EMAILS. To anyone else, signed out included, the address
 * does not exist: the request goes on to the app's ordinary 404 page.
 *
 * Bull Board is loaded at an admin's first visit, not at start: most web processes never serve
 * it, and loaded it holds a few MB of every process's memory (docs/performance.md, Memory). An
 * admin's JSON is parsed under the API's rules (UTF-8, nested at most so deep) before it sees it.
 */
export function queueDashboard(settings: QueueDashboardSettings): Router {
  let board: Promise<Express> | undefined;
  const router = Router();
  router.use(QUEUE_DASHBOARD_PATH, onlyFor(new Set(settings.adminEmails)), parseJsonBody('100kb'), (req, res, next) => {
    board ??= createBoard(settings);
    board.then(
      (boardApp) => boardApp(req, res, next),
      (error: unknown) => {
        // A load that failed (too many open files, say) is tried again at the next visit.
        board = undefined;
        next(error);
      },
    );
  });
  return router;
}

async function createBoard({ queues, allowActions }: QueueDashboardSettings): Promise<Express> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const board = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  const adapters = LANES.map((lane) => new BullMQAdapter(queues[lane], { readOnlyMode: !allowActions }));
  createBullBoard({ queues: adapters, serverAdapter: board });
  const boardApp = board.getRouter() as Express;
  // An Express app of its own, which would otherwise name Express in every answer.
  boardApp.disable('x-powered-by');
  return boardApp;
}

function onlyFor(adminEmails: Set<string>): RequestHandler {
  return (_req, res, next) => {
    const user = res.locals.user as User | undefined;
    next(user && adminEmails.has(user.email.toLowerCase()) ? undefined : 'router');
  };
}
