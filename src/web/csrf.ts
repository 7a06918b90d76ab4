import { csrfSync } from 'csrf-sync';
import type { Request, RequestHandler } from 'express';

/**
 * HTML forms carry a synchronizer token (`_csrf`) kept in the session. Safe methods pass and
 * get `req.csrfToken()` for the form they render; a POST without the session's token gets 403.
 */
export function createCsrfProtection(): RequestHandler {
  const { csrfSynchronisedProtection } = csrfSync({
    getTokenFromRequest: (req) => {
      const body: unknown = req.body;
      return typeof body === 'object' && body !== null && '_csrf' in body && typeof body._csrf === 'string'
        ? body._csrf
        : undefined;
    },
    errorConfig: { statusCode: 403, message: 'This form has expired. Go back, reload the page and try again.' },
  });
  return csrfSynchronisedProtection;
}

/**
 * The session's form token, made if it has none: for a page answered before the CSRF check could
 * run (an upload refused before its body, and so its `_csrf`, was read). Such an answer changes nothing.
 */
export function formTokenOf(req: Request): string {
  return csrfSync().generateToken(req);
}
