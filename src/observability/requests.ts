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

/**
 * The route pattern that answered (e.g. /api/meals/:id), so that metrics' labels stay few;
 * for middleware without a route (static files, the 404 page) where it was mounted.
 */
function routeOf(req: Request): string {
  if (req.route) return `${req.baseUrl}${String(req.route.path)}`;
  return req.baseUrl || 'unmatched';
}
