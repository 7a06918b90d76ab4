import type { ErrorRequestHandler } from 'express';
import { DatabaseBusyError } from '../db/database-busy-error.js';
import { DatabaseUnreachableError } from '../db/database-unreachable-error.js';
import { DatabaseUnwritableError } from '../db/database-unwritable-error.js';
import type { Logger } from '../logger.js';
import { LockTimeoutError } from '../redis/redis-lock.js';
import { isRedisUnavailable } from '../redis/redis-unavailable.js';
import type { RenderPage } from './pages.js';
import { ClientLeftError } from './client-left.js';
import { isSessionStoreUnavailable } from './session-store-unavailable.js';
import { wantsJson } from './wants-json.js';

/** How a failed request is answered: the status, the API's error code and a sentence for the person. */
interface Answer {
  status: number;
  error: string;
  message: string;
  retryAfterS?: number;
  /** Failures on our side are logged with their details, which the person never sees. */
  log?: 'warn' | 'error';
}

const DATABASE_BUSY: Answer = {
  status: 503,
  error: 'busy',
  message: 'Too many changes are being saved right now. Please try again in a moment.',
  retryAfterS: 1,
  log: 'warn',
};

/** Not the person's doing, nor passing by itself: logged as an error, for an operator to act on. */
const DATABASE_UNWRITABLE: Answer = {
  status: 503,
  error: 'unavailable',
  message: 'Changes cannot be saved right now. Please try again later.',
  log: 'error',
};

/** When a client may try again after Redis or the database was out of reach (both reconnect by themselves). */
const UNREACHABLE_RETRY_AFTER_S = 5;

/** Like Redis away, but every request needs the database, so an operator should know. */
const DATABASE_UNREACHABLE: Answer = {
  status: 503,
  error: 'unavailable',
  message: 'The app is unavailable for a moment. Please try again shortly.',
  retryAfterS: UNREACHABLE_RETRY_AFTER_S,
  log: 'error',
};

const REDIS_UNAVAILABLE: Answer = { ...DATABASE_UNREACHABLE, log: 'warn' };

const INTERNAL_ERROR: Answer = {
  status: 500,
  error: 'internal_error',
  message: 'Something went wrong on our side. Please try again.',
  log: 'error',
};

/** The last middleware: answers every error, JSON to a JSON client (wants-json.ts) and an error page to a browser. */
export function createErrorHandler({ logger, renderPage }: { logger: Logger; renderPage: RenderPage }): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const request = { method: req.method, path: req.path };
    if (res.headersSent) {
      logger.error({ err: error, ...request }, 'request failed after its response had started; connection closed');
      // What Express's default handler does here, without its printing the error outside the log.
      req.socket.destroy();
      return;
    }
    // Nobody to answer; the request is logged and counted as 499 (observability/requests.ts).
    if (error instanceof ClientLeftError) return;
    const answer = answerFor(error);
    if (answer.log) logger[answer.log]({ err: error, ...request }, 'request failed');
    if (answer.retryAfterS !== undefined) res.set('Retry-After', String(answer.retryAfterS));
    // Answered as to someone signed out (the account was deleted while the request ran): the page
    // then holds no form token, so nothing writes the ended session back.
    if (answer.status === 401) res.locals.user = undefined;
    if (wantsJson(req)) {
      res.status(answer.status).json({ error: answer.error, message: answer.message });
    } else {
      renderPage(req, res, 'error', { title: 'Error', heading: 'That did not work', message: answer.message }, answer.status);
    }
  };
}

/** The one place that decides what kind of failure an error is. */
function answerFor(error: unknown): Answer {
  // Another request held what this one needed (the same file's upload, say) for too long.
  if (error instanceof DatabaseBusyError || error instanceof LockTimeoutError) return DATABASE_BUSY;
  if (error instanceof DatabaseUnwritableError) return DATABASE_UNWRITABLE;
  if (error instanceof DatabaseUnreachableError) return DATABASE_UNREACHABLE;
  if (isRedisUnavailable(error) || isSessionStoreUnavailable(error)) return REDIS_UNAVAILABLE;
  const status = refusalStatus(error);
  if (status !== undefined) return { status, error: refusalCode(status), message: errorMessage(error) };
  return INTERNAL_ERROR;
}

/**
 * The status that middleware (body parsers, CSRF, an upload's admission) attached to an error, if
 * any: a 4xx, or 503 for a request refused only because too many others are being served.
 */
function refusalStatus(error: unknown): number | undefined {
  const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined;
  return typeof status === 'number' && ((status >= 400 && status < 500) || status === 503) ? status : undefined;
}

/**
 * A refusal (a foreign origin, a missing form token), a body over a limit (an upload, a JSON body),
 * one too slow, one in a charset the app does not read, and one that came at a busy moment are told
 * apart: the client should not retry, should send less or faster, should send it as UTF-8, or should
 * wait and send the same again.
 */
const REFUSAL_CODES: Record<number, string> = {
  401: 'unauthenticated',
  403: 'forbidden',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'busy',
};

function refusalCode(status: number): string {
  return REFUSAL_CODES[status] ?? 'bad_request';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'The request was not valid.';
}
