import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';
import { withLogContext } from './log-context.js';
import type { Metrics } from './metrics.js';

/** An id a proxy or client sent is kept only when it cannot forge or flood a log line. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The first middleware: gives the request an id (echoed in X-Request-Id) that every log line
 * written while handling it carries, logs one line when it is answered, and counts it.
 */
export function observeRequests({ logger, metrics }: { logger: Logger; metrics: Metrics }): RequestHandler[] {
  const logAnswer = pinoHttp<Request, Response>({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFrom(req.get('x-request-id'));
      res.set('X-Request-Id', id);
      return id;
    },
    // The answer's line, from a logger without the request bound to it, holds the summary alone:
    // no headers, so no cookies or tokens.
    quietResLogger: true,
    customSuccessObject: (req, res, { responseTime }: { responseTime: number }) => answerSummary(req, res, responseTime),
    customErrorObject: (req, res, _error, { responseTime }: { responseTime: number }) => answerSummary(req, res, responseTime),
    customSuccessMessage: () => 'request answered',
    customErrorMessage: () => 'request answered',
    // Failures are logged with their details by the error handler.
    customLogLevel: () => 'info',
  });
  const inContext: RequestHandler = (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const answer = { method: req.method, route: routeOf(req), status: res.statusCode };
      metrics.requestServed(answer, (performance.now() - started) / 1000);
    });
    withLogContext({ reqId: String(req.id) }, next);
  };
  return [logAnswer, inContext];
}

export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

function answerSummary(req: Request, res: Response, ms: number) {
  return { reqId: req.id, method: req.method, route: routeOf(req), status: res.statusCode, ms };
}

/**
 * The route pattern that answered (e.g. /api/meals/:id), so that metrics' labels stay few;
 * for middleware without a route (static files, the 404 page) where it was mounted.
 */
function routeOf(req: Request): string {
  if (req.route) return `${req.baseUrl}${String(req.route.path)}`;
  return req.baseUrl || 'unmatched';
}
