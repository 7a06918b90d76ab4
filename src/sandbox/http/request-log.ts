import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One line per request: method, path, status, duration. Never the query string, headers or body,
 * which carry codes, tokens and secrets.
 */
export function logRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const startedAt = performance.now();
    res.on('close', () => {
      logger.info(
        {
          method: req.method,
          path: req.path,
          status: res.headersSent ? res.statusCode : 'no response',
          durationMs: Math.round(performance.now() - startedAt),
        },
        'request',
      );
    });
    next();
  };
}
