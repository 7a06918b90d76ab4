import { Router, type Express, type Request, type RequestHandler } from 'express';
import type { User } from '../accounts/user.table.js';
import { LANES, type SyncQueues } from '../sync/queue.js';
import { requireUserPage } from '../web/authentication.js';
import { parseJsonBody } from '../web/request-guards.js';
import { wantsJson } from '../web/wants-json.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

export interface QueueDashboardSettings {
  queues: SyncQueues;
  /** ADMIN_EMAILS, lower-cased. */
  adminEmails: string[];
  /** ADMIN_QUEUE_ACTIONS: retry, clean, pause, remove; otherwise Bull Board answers 405 to each. */
  allowActions: boolean;
}

/**
 * Bull Board for the accounts in ADMIN_EMAILS. A signed-out visit to its page leads to sign in and
 * then back to it, as any page of the app does (an admin follows the link the demo prints before
 * signing in). Anything else of it, its JSON and its files, does not exist to a signed-out person,
 * nor any of it to an account not listed: the request goes on to the app's ordinary 404 page.
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
  createBullBoard({
    queues: adapters,
    serverAdapter: board,
    // The header's last menu holds the way back to the app's pages; without the link to Bull Board's
    // own documentation, that menu fits a phone's width too.
    options: {
      uiConfig: { boardTitle: 'athlete-sync queues', hideDocsLink: true, miscLinks: [{ text: 'Back to athlete-sync', url: '/' }] },
    },
  });
  const boardApp = board.getRouter() as Express;
  // An Express app of its own, which would otherwise name Express in every answer.
  boardApp.disable('x-powered-by');
  return boardApp;
}

/** A page of the board a browser opens (its own router draws the rest), not its JSON (`api/`) or its files (`static/`). */
function isBoardPage(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !/^\/(api|static)\//.test(req.path) && !wantsJson(req);
}

function onlyFor(adminEmails: Set<string>): RequestHandler {
  return (req, res, next) => {
    const user = res.locals.user as User | undefined;
    if (user === undefined && isBoardPage(req)) return requireUserPage(req, res, next);
    next(user && adminEmails.has(user.email.toLowerCase()) ? undefined : 'router');
  };
}
