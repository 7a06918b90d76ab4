import { z } from 'zod';
import type { ServiceAnswer } from './keep-alive-request.js';
import { ServiceError } from './service-error.js';

/**
 * The one place that decides what a data endpoint's answer means (docs/architecture.md, decision 6; the
 * document shows no error codes or bodies, §7, so only the status and the standard headers count):
 * 2xx success; 429 retryable after Retry-After; 5xx retryable; 401 handled by the caller with one
 * refresh, then retryable; a 403 for a missing scope needs reconnecting (only the person can grant
 * it); 400 and other 4xx permanent, with the service's message.
 */
export async function failureOf(response: ServiceAnswer, now: Date): Promise<ServiceError | undefined> {
  if (response.ok) return undefined;
  const body = errorBodySchema.safeParse(safeJson(await response.text().catch(() => ''))).data;
  const message = `HTTP ${response.status}: ${serviceMessage(body, response)}`;
  if (response.status === 429) {
    return new ServiceError('retryable', message, { retryAfterMs: retryAfterMs(response.headers.get('retry-after'), now) });
  }
  if (response.status >= 500 || response.status === 401) return new ServiceError('retryable', message);
  if (response.status === 403 && lacksScope(body, response.headers.get('www-authenticate'))) {
    return new ServiceError('needs-reconnect', `the grant lacks a scope this request needs (${message})`, { missingScope: true });
  }
  return new ServiceError('permanent', message);
}

/** A request that got no answer (reset, timeout, refused connection) may be tried again. */
export function transportFailure(error: unknown): ServiceError {
  const reason =
    error instanceof Error ? `${error.name}: ${error.cause instanceof Error ? error.cause.message : error.message}` : 'unknown';
  return new ServiceError('retryable', `no answer from the Athlete Data Service (${reason})`, { unanswered: true });
}

const DEFAULT_RETRY_AFTER_MS = 1000;
/** A 429 pauses every worker; an hour at most, so a mistaken header cannot stop syncing for days. */
const MAX_RETRY_AFTER_MS = 3600 * 1000;

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3); without one, wait a second. */
export function retryAfterMs(header: string | null, now: Date): number {
  const value = header?.trim() ?? '';
  const waitMs = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  if (Number.isNaN(waitMs)) return DEFAULT_RETRY_AFTER_MS;
  return Math.min(Math.max(waitMs, 1), MAX_RETRY_AFTER_MS);
}

const errorBodySchema = z.looseObject({
  error: z.string().optional(),
  error_description: z.string().optional(),
  message: z.string().optional(),
});

type ErrorBody = z.infer<typeof errorBodySchema>;

/** The service's own words where its body has any (RFC 6749/6750 style or a message), else the status text. */
function serviceMessage(body: ErrorBody | undefined, response: ServiceAnswer): string {
  const words = body ? [body.error, body.error_description ?? body.message] : [];
  return words.filter(Boolean).join(': ') || response.statusText || 'no details';
}

/** `error="insufficient_scope"` in a Bearer challenge (RFC 6750 §3). */
const INSUFFICIENT_SCOPE_CHALLENGE = /(?:^|[\s,])error\s*=\s*"?insufficient_scope"?(?:$|[\s,])/i;

/** RFC 6750 §3.1: the token lacks a scope the request needs, said in the body's `error` or in the challenge. */
function lacksScope(body: ErrorBody | undefined, challenge: string | null): boolean {
  return body?.error === 'insufficient_scope' || INSUFFICIENT_SCOPE_CHALLENGE.test(challenge ?? '');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
