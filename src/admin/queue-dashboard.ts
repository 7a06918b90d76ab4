import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type Express, type RequestHandler } from 'express';
import type { User } from '../accounts/user.table.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

export interface QueueDashboardSettings {
  queue: Queue;
  /** ADMIN_EMAILS, lower-cased. */
  adminEmails: string[];
  /** ADMIN_QUEUE_ACTIONS: retry, clean, pause, remove; otherwise Bull Board answers 405 to each. */
  allowActions: boolean;
}

/**
 * Bull Board for the accounts in ADMIN_EMAILS. To anyone else, signed out included, the address
 * does not exist: the request goes on to the app's ordinary 404 page.
 */
export function queueDashboard({ queue, adminEmails, allowActions }: QueueDashboardSettings): Router {
  const board = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: [new BullMQAdapter(queue, { readOnlyMode: !allowActions })], serverAdapter: board });
  const boardApp: Express = board.getRouter();
  // An Express app of its own, which would otherwise name Express in every answer.
  boardApp.disable('x-powered-by');
  const router = Router();
  router.use(QUEUE_DASHBOARD_PATH, onlyFor(new Set(adminEmails)), boardApp);
  return router;
}

function onlyFor(adminEmails: Set<string>): RequestHandler {
  return (_req, res, next) => {
    const user: User | undefined = res.locals.user;
    next(user && adminEmails.has(user.email.toLowerCase()) ? undefined : 'router');
  };
}
