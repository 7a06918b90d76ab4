import { z } from 'zod';
import { ServiceError } from './service-error.js';

/**
 * The one place that decides what a data endpoint's answer means (docs/architecture.md, decision 6; the
 * document shows no error codes or bodies, §7, so only the status and the standard headers count):
 * 2xx success; 429 retryable after Retry-After; 5xx retryable; 401 handled by the caller with one
 * refresh, then retryable; 400 and other 4xx permanent, with the service's message.
 */
export async function failureOf(response: Response, now: Date): Promise<ServiceError | undefined> {
  if (response.ok) return undefined;
  const message = `HTTP ${response.status}: ${await serviceMessage(response)}`;
  if (response.status === 429) {
    return new ServiceError('retryable', message, retryAfterMs(response.headers.get('retry-after'), now));
  }
  if (response.status >= 500 || response.status === 401) return new ServiceError('retryable', message);
  return new ServiceError('permanent', message);
}

/** A request that got no answer (reset, timeout, refused connection) may be tried again. */
export function transportFailure(error: unknown): ServiceError {
  const reason = error instanceof Error ? `${error.name}: ${error.cause instanceof Error ? error.cause.message : error.message}` : 'unknown';
  return new ServiceError('retryable', `no answer from the Athlete Data Service (${reason})`);
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

/** The service's own words where its body has any (RFC 6749/6750 style or a message), else the status text. */
async function serviceMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  const body = errorBodySchema.safeParse(safeJson(text));
  const words = body.success ? [body.data.error, body.data.error_description ?? body.data.message] : [];
  return words.filter(Boolean).join(': ') || response.statusText || 'no details';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
