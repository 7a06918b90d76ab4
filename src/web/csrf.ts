import { createHmac } from 'node:crypto';
import cookieParser from 'cookie-parser';
import { doubleCsrf } from 'csrf-csrf';
import { csrfSync } from 'csrf-sync';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { flashOnSignIn } from './flash.js';
import { keepDraftUntilSignIn } from './form-draft.js';
import { formFields } from './form-fields.js';
import { sameSitePath } from './return-to.js';
import { SESSION_COOKIE } from './session.js';
import { wantsJson } from './wants-json.js';

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

/** The browser had a session (its cookie came) that no longer signs anyone in: it ended while the form's page was open. */
function sessionEnded(req: Request): boolean {
  const cookies: unknown = req.cookies;
  return typeof cookies === 'object' && cookies !== null && SESSION_COOKIE in cookies;
}

/**
 * A form whose session ended while its page was open: what was typed waits for sign-in, which leads
 * back to the form's page (the page it was sent from, when that is one of this site's) to send it again.
 */
function signInToSendAgain(req: Request, res: Response): void {
  keepDraftUntilSignIn(req, res);
  if (res.locals.signInNotice === undefined) flashOnSignIn(req, res, 'form_waiting');
  const next = formPage(req);
  res.redirect(303, next === undefined ? '/login' : `/login?next=${encodeURIComponent(next)}`);
}

/** The page a form was sent from, as its Referer names it, when that is a page of this site. */
function formPage(req: Request): string | undefined {
  const referer = z.url().safeParse(req.get('referer'));
  if (!referer.success) return undefined;
  const page = new URL(referer.data);
  return page.host === req.get('host') ? sameSitePath(`${page.pathname}${page.search}`) : undefined;
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
    if (doubleSubmit.validateRequest(req)) return next();
    if (sessionEnded(req) && !wantsJson(req)) return signInToSendAgain(req, res);
    next(doubleSubmit.invalidCsrfTokenError);
  };

  return {
    check: [cookieParser(), verify],
    tokenFor: (req, res) => (signedIn(req) ? synchronised.generateToken(req) : doubleSubmit.generateCsrfToken(req, res)),
  };
}
