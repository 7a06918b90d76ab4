import { ResponseBodyError } from 'openid-client';
import { ZodError } from 'zod';
import { retryAfterMs } from './responses.js';
import { ServiceError } from './service-error.js';

/**
 * The one place that decides what a failed token request means (RFC 6749 §5.2 error bodies are
 * assumed where the document says "not shown"):
 * - needs-reconnect: the grant is gone (`invalid_grant`); only the person can fix it, by reconnecting;
 * - retryable: the service did not answer properly (5xx, 429) or not at all (`status` undefined:
 *   a timeout, an abort, a reset); try again later, tokens untouched;
 * - permanent: the service refused the request itself (other OAuth errors, other 4xx), or answered
 *   with something that is not a token response: a bug or misconfiguration.
 *
 * `error` and `description` are the service's own words (its RFC 6749 §5.2 error body); `reason` is this
 * app's diagnosis, exception text included, for the log only (see serviceWords).
 */
export type TokenRequestFailure =
  | { kind: 'needs-reconnect'; error: string; description: string | undefined }
  | { kind: 'retryable'; status: number | undefined; reason: string; retryAfterMs?: number }
  | { kind: 'permanent'; status: number; error: string; description: string | undefined }
  | { kind: 'permanent'; status: number | undefined; reason: string };

export function classifyTokenRequestError(error: unknown): TokenRequestFailure {
  if (error instanceof ResponseBodyError) {
    if (error.error === 'invalid_grant') {
      return { kind: 'needs-reconnect', error: error.error, description: error.error_description };
    }
    if (isRetryableStatus(error.status)) return retryable(error.response, error.error);
    return { kind: 'permanent', status: error.status, error: error.error, description: error.error_description };
  }
  const response = findResponse(error);
  if (response) {
    return isRetryableStatus(response.status)
      ? retryable(response, `HTTP ${response.status}`)
      : { kind: 'permanent', status: response.status, reason: `HTTP ${response.status} without an OAuth error body` };
  }
  if (!wasAbandoned(error) && isUnusableAnswer(error)) {
    return { kind: 'permanent', status: undefined, reason: describeError(error) };
  }
  return { kind: 'retryable', status: undefined, reason: describeError(error) };
}

/**
 * What the service itself said about the failure, fit to show the person: its OAuth error code
 * and description. Undefined when it said nothing (no answer, or no OAuth error body).
 */
export function serviceWords(failure: TokenRequestFailure): string | undefined {
  if (!('error' in failure)) return undefined;
  return [failure.error, failure.description].filter(Boolean).join(': ');
}

/**
 * The failure as an error for the work that needed a token; its message names the cause, never a
 * token. A refusal other than invalid_grant (invalid_client, say) is this app's configuration, not
 * the work's fault: the work waits and is retried, rather than being marked failed for good.
 */
export function toServiceError(failure: TokenRequestFailure): ServiceError {
  if (failure.kind === 'retryable') {
    const message = `token endpoint unavailable (${failure.status ?? 'no answer'}: ${failure.reason})`;
    return new ServiceError('retryable', message, { retryAfterMs: failure.retryAfterMs });
  }
  const refusal =
    'error' in failure ? `token endpoint refused: ${serviceWords(failure)}` : `token endpoint answered unusably: ${failure.reason}`;
  return new ServiceError(failure.kind === 'needs-reconnect' ? 'needs-reconnect' : 'retryable', refusal);
}

/** A 429's Retry-After is honoured here too, like the data endpoints'. */
function retryable(response: Response, reason: string): TokenRequestFailure {
  const retryAfter = response.status === 429 ? { retryAfterMs: retryAfterMs(response.headers.get('retry-after'), new Date()) } : {};
  return { kind: 'retryable', status: response.status, reason, ...retryAfter };
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function* errorChain(error: unknown): Generator<Error> {
  for (let current = error; current instanceof Error; current = current.cause) yield current;
}

/** openid-client keeps an HTTP response of unexpected status as the `cause` of the error it throws. */
function findResponse(error: unknown): Response | undefined {
  for (const current of errorChain(error)) if (current.cause instanceof Response) return current.cause;
  return undefined;
}

/**
 * The request was given up before any answer arrived: fetch's signal fired at the timeout
 * (openid-client wraps that DOMException as `OAUTH_TIMEOUT`) or the request was aborted
 * (`OAUTH_ABORT`). The service may have acted on it all the same, like on a reset.
 */
function wasAbandoned(error: unknown): boolean {
  return [...errorChain(error)].some((current) => current.name === 'TimeoutError' || current.name === 'AbortError');
}

/**
 * The service answered, but not with a usable token response: openid-client's protocol checks
 * (codes `OAUTH_*`) or our own parse of section 2.1 failed. Asking again would not help.
 */
function isUnusableAnswer(error: unknown): boolean {
  return [...errorChain(error)].some(
    (current) => current instanceof ZodError || ('code' in current && String(current.code).startsWith('OAUTH_')),
  );
}

function describeError(error: unknown): string {
  return [...errorChain(error)].map((current) => `${current.name}: ${current.message}`).join(' <- ') || 'unknown error';
}
