import { createHmac } from 'node:crypto';
import cookieParser from 'cookie-parser';
import { doubleCsrf } from 'csrf-csrf';
import { csrfSync } from 'csrf-sync';
import type { Request, RequestHandler, Response } from 'express';
import { formFields } from './form-fields.js';

/** The cookie that carries a signed-out visitor's form token (signed double-submit). */
export const FORM_TOKEN_COOKIE = 'athlete_sync_form';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const EXPIRED_FORM = { statusCode: 403, message: 'This form has expired. Go back, reload the page and try again.' };

export interface FormProtection {
  /** Refuses (403) a form post without its page's token; safe methods pass. Mounted before the forms' routes. */
  check: RequestHandler[];
  /** The token the page being rendered puts in its forms (`_csrf`). */
  tokenFor: (req: Request, res: Response) => string;
}

/** The `_csrf` field of a parsed form body. */
function bodyToken(req: Request): string | undefined {
  const token = formFields(req)._csrf;
  return typeof token === 'string' ? token : undefined;
}

/**
 * HTML forms carry a token (`_csrf`) that a page of another site cannot know (OWASP CSRF Prevention
 * Cheat Sheet). Two kinds, so that a signed-out visitor costs no stored session:
 * - signed in: a synchronizer token kept in the session (csrf-sync);
 * - signed out (the sign-in and sign-up forms): a signed double-submit token (csrf-csrf). The same
 *   random value is in a cookie and in the form, with an HMAC under a key derived from
 *   SESSION_SECRET, so another site can neither read it nor make one; nothing is stored.
 * Which kind a request is checked against follows whether its session is signed in, as when its page was rendered.
 */
export function createFormProtection({ sessionSecret, secure }: { sessionSecret: string; secure: boolean }): FormProtection {
  const synchronised = csrfSync({ getTokenFromRequest: bodyToken, errorConfig: EXPIRED_FORM });
  const formTokenKey = createHmac('sha256', sessionSecret).update('athlete-sync signed-out form tokens').digest('hex');
  const doubleSubmit = doubleCsrf({
    getSecret: () => formTokenKey,
    // A signed-out visitor has no session to bind the token to.
    getSessionIdentifier: () => '',
    cookieName: FORM_TOKEN_COOKIE,
    cookieOptions: { sameSite: 'strict', secure, httpOnly: true, path: '/' },
    getCsrfTokenFromRequest: bodyToken,
    errorConfig: EXPIRED_FORM,
  });
  const signedIn = (req: Request) => req.session.userId !== undefined;

  const verify: RequestHandler = (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (signedIn(req)) return synchronised.csrfSynchronisedProtection(req, res, next);
    next(doubleSubmit.validateRequest(req) ? undefined : doubleSubmit.invalidCsrfTokenError);
  };

  return {
    check: [cookieParser(), verify],
    tokenFor: (req, res) => (signedIn(req) ? synchronised.generateToken(req) : doubleSubmit.generateCsrfToken(req, res)),
  };
}
