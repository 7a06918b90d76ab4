import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { withLogContext } from './log-context.js';
import type { Metrics } from './metrics.js';

/** An id a proxy or client sent is kept only when it cannot forge or flood a log line. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** nginx's status for a request whose client left before the answer: none was sent. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * The first middleware: gives the request an id (echoed in X-Request-Id) that every log line
 * written while handling it carries, logs one line when it is answered, and counts it.
 */
export function observeRequests({ logger, metrics }: { logger: Logger; metrics: Metrics }): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const reqId = requestIdFrom(req.get('x-request-id'));
    res.set('X-Request-Id', reqId);
    res.once('close', () => {
      const ms = performance.now() - started;
      const status = res.writableEnded ? res.statusCode : CLIENT_CLOSED_REQUEST;
      const answer = { method: req.method, route: routeOf(req), status };
      metrics.requestServed(answer, ms / 1000);
      // The summary alone: no headers, so no cookies or tokens.
      logger.info({ reqId, ...answer, ms: Math.round(ms) }, 'request answered');
    });
    withLogContext({ reqId }, next);
  };
}

function requestIdFrom(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** The label of every answer that no route of the app's own gave. */
const UNMATCHED = 'unmatched';

/**
 * The pattern of the route that answered (e.g. /api/meals/:id), so that metrics' labels stay as
 * few as the app's routes. Never anything taken from the path as sent: Express matches paths
 * without regard to case, and a mount point's `baseUrl` is the text that matched it, so
 * /API/Meals would make a series of its own, and every other spelling one more. So an answer
 * given by middleware (a sign-in required, static files, the 404 page) or beneath a mounted
 * router (the queue dashboard) is UNMATCHED; the app mounts its own routers at the root.
 */
function routeOf(req: Request): string {
  const route = req.route as { path: unknown } | undefined;
  return route && req.baseUrl === '' ? String(route.path) : UNMATCHED;
}
