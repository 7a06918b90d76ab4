import { ResponseBodyError } from 'openid-client';
import { ZodError } from 'zod';
import { ServiceError } from './service-error.js';

/**
 * The one place that decides what a failed token request means (RFC 6749 §5.2 error bodies are
 * assumed where the document says "not shown"):
 * - needs-reconnect: the grant is gone (`invalid_grant`); only the person can fix it, by reconnecting;
 * - retryable: the service did not answer properly (5xx, 429, network, timeout); try again later, tokens untouched;
 * - permanent: the service refused the request itself (other OAuth errors, other 4xx): a bug or misconfiguration.
 */
export type TokenRequestFailure =
  | { kind: 'needs-reconnect'; code: string; description: string | undefined }
  | { kind: 'retryable'; status: number | undefined; reason: string }
  | { kind: 'permanent'; status: number | undefined; code: string; description: string | undefined };

export function classifyTokenRequestError(error: unknown): TokenRequestFailure {
  if (error instanceof ResponseBodyError) {
    if (error.error === 'invalid_grant') {
      return { kind: 'needs-reconnect', code: error.error, description: error.error_description };
    }
    if (isRetryableStatus(error.status)) return { kind: 'retryable', status: error.status, reason: error.error };
    return { kind: 'permanent', status: error.status, code: error.error, description: error.error_description };
  }
  const response = findResponse(error);
  if (response) {
    return isRetryableStatus(response.status)
      ? { kind: 'retryable', status: response.status, reason: `HTTP ${response.status}` }
      : { kind: 'permanent', status: response.status, code: 'unexpected_response', description: undefined };
  }
  if (isUnusableAnswer(error)) {
    return { kind: 'permanent', status: undefined, code: 'invalid_response', description: describeError(error) };
  }
  return { kind: 'retryable', status: undefined, reason: describeError(error) };
}

/** The failure as an error to throw; its message names the cause but never a token. */
export function toServiceError(failure: TokenRequestFailure): ServiceError {
  const message =
    failure.kind === 'retryable'
      ? `token endpoint unavailable (${failure.status ?? 'no answer'}: ${failure.reason})`
      : `token endpoint refused: ${[failure.code, failure.description].filter(Boolean).join(': ')}`;
  return new ServiceError(failure.kind, message);
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
