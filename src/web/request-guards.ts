import express, { type Request, type RequestHandler } from 'express';
import { nestsTooDeep, TOO_DEEP_MESSAGE } from '../text/json-nesting.js';
import { isOtherLoopbackSpelling } from './loopback-address.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request from `origin` was refused, naming the address to use: a page of this machine under
 * another spelling of the app's (127.0.0.1 for localhost) is told so, anything else is another site.
 */
function foreignOriginMessage(origin: string, ownOrigin: string): string {
  if (isOtherLoopbackSpelling(origin, ownOrigin)) {
    return `This app's address is ${ownOrigin}, not ${origin}. Open ${ownOrigin} and send it from there.`;
  }
  return `Requests from another site are not accepted. Open ${ownOrigin} and send it from there.`;
}

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
    next(Object.assign(new Error(foreignOriginMessage(origin, ownOrigin)), { status: 403 }));
  };
}

/** The JSON API takes JSON only; a body of any other type is refused before it is parsed. */
export const requireJsonBody: RequestHandler = (req, res, next) => {
  // req.is() is null for a request without a body, false for a body of another type. An empty body
  // is none: fetch sends a POST without one as Content-Length: 0, with no Content-Type.
  if (req.is('application/json') !== false || req.get('content-length') === '0') return next();
  res.status(415).json({ error: 'unsupported_media_type', message: 'Send the body as Content-Type: application/json.' });
};

const NOT_UTF8_MESSAGE = 'Send the body as JSON in UTF-8: Content-Type: application/json, with no charset or charset=utf-8.';

/**
 * The JSON API's body parser, express.json within `limit`, under two rules checked before the body
 * is parsed. JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset is refused with 415.
 * And a body nested deeper than JSON_MAX_NESTING is refused with 400, so that no walk of it (a
 * schema, JSON.stringify) can run out of stack.
 */
export function parseJsonBody(limit: number | string): RequestHandler {
  const parse = express.json({ limit, verify: checkJsonText });
  return (req, res, next) => {
    // express.json refuses a charset not named utf-* before reading the body, in its own words.
    parse(req, res, (error?: unknown) => next(isUnsupportedCharset(error) ? notUtf8() : error));
  };
}

/**
 * express.json's `verify`, given the body as read and the charset the parser is about to decode it
 * with: only UTF-8 goes on, so the depth is counted on the text the parser parses.
 */
function checkJsonText(_req: Request, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== 'utf-8') throw notUtf8();
  if (nestsTooDeep(body.toString('utf8'))) throw Object.assign(new Error(`The body ${TOO_DEEP_MESSAGE}.`), { status: 400 });
}

function notUtf8(): Error {
  return Object.assign(new Error(NOT_UTF8_MESSAGE), { status: 415 });
}

function isUnsupportedCharset(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'type' in error && error.type === 'charset.unsupported';
}
