import type { Request, RequestHandler } from 'express';
import { nestsTooDeep, TOO_DEEP_MESSAGE } from '../text/json-nesting.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const FOREIGN_ORIGIN_MESSAGE = 'Requests from another site are not accepted. Go back to the page and send it from there.';

/**
 * Refuses state-changing requests sent from another site's page. Browsers send Origin with
 * such requests; scripts and mobile clients send none and are served (they carry no ambient
 * cookie from a victim's browser). The error handler answers (wants-json.ts): an error page to a
 * browser's form, JSON to the API.
 */
export function refuseForeignOrigin(appBaseUrl: string): RequestHandler {
  const ownOrigin = new URL(appBaseUrl).origin;
  return (req, _res, next) => {
    const origin = req.get('origin');
    if (SAFE_METHODS.has(req.method) || origin === undefined || origin === ownOrigin) return next();
    next(Object.assign(new Error(FOREIGN_ORIGIN_MESSAGE), { status: 403 }));
  };
}

/** The JSON API takes JSON only; a body of any other type is refused before it is parsed. */
export const requireJsonBody: RequestHandler = (req, res, next) => {
  // req.is() is null for a request without a body, false for a body of another type. An empty body
  // is none: fetch sends a POST without one as Content-Length: 0, with no Content-Type.
  if (req.is('application/json') !== false || req.get('content-length') === '0') return next();
  res.status(415).json({ error: 'unsupported_media_type', message: 'Send the body as Content-Type: application/json.' });
};

/**
 * express.json's `verify`: a body nested deeper than JSON_MAX_NESTING is refused with 400 before
 * it is parsed, so that no walk of it (a schema, JSON.stringify) can run out of stack.
 */
export function refuseDeepJson(_req: Request, _res: unknown, body: Buffer): void {
  if (nestsTooDeep(body.toString('utf8'))) throw Object.assign(new Error(`The body ${TOO_DEEP_MESSAGE}.`), { status: 400 });
}
