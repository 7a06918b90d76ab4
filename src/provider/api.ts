import { performance } from 'node:perf_hooks';
import type { AccessTokens } from '../connections/access-token.js';
import { beforeDeadline, TIMED_OUT } from '../deadline.js';
import type { Metrics } from '../observability/metrics.js';
import { keepAliveRequests, type ServiceAnswer, type StreamedBody } from './keep-alive-request.js';
import { multipartBody, type MultipartParts } from './multipart-body.js';
import { failureOf, transportFailure } from './responses.js';

/**
 * The calls to the service's data endpoints (section 4), whatever the kind: each kind makes its own
 * through these (its *.service.ts). Every call carries a Bearer token from AccessTokens; a 401 gets
 * one refresh and one retry, never more. Failures are thrown as ServiceError, classified in
 * responses.ts.
 */
export interface ServiceApi {
  /** POSTs `body` as JSON to `path`; the answer's body is not read (the document shows none, §4.6): success is the status. */
  postJson(userId: number, path: string, body: unknown): Promise<void>;
  /** POSTs a multipart form to `path`: a file part is read from its store as it is sent, once per request. */
  postMultipart(userId: number, path: string, parts: MultipartParts): Promise<void>;
  /**
   * GETs `path`; its body comes back as text, for the caller to read leniently. `timeoutMs` bounds
   * the whole call, a refresh of its token included, for a person who waits for it; without it each
   * request takes ATHLETE_TIMEOUT_S.
   */
  getText(userId: number, path: string, options?: { timeoutMs?: number }): Promise<string>;
}

/** Where the service is and how long a request may take: a process's `config.athlete`. */
export interface ServiceApiSettings {
  baseUrl: string;
  /** ATHLETE_TIMEOUT_S: what a request may take, plus its body's time at `uploadMinBytesPerS`. */
  timeoutS: number;
  /** ATHLETE_UPLOAD_MIN_BYTES_PER_S: the slowest rate a body (in practice a .fit file) may travel at. */
  uploadMinBytesPerS: number;
}

export interface ServiceApiParts {
  accessTokens: AccessTokens;
  clock: () => Date;
  metrics: Metrics;
}

/** What one call sends; a function, so the 401 retry builds a fresh body. */
type RequestInit = () => { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | StreamedBody };

export function createServiceApi(
  { baseUrl, timeoutS, uploadMinBytesPerS }: ServiceApiSettings,
  { accessTokens, clock, metrics }: ServiceApiParts,
): ServiceApi {
  const request = keepAliveRequests({ baseS: timeoutS, minBytesPerS: uploadMinBytesPerS });

  async function send(token: string, path: string, init: RequestInit, timeoutMs: number | undefined): Promise<ServiceAnswer> {
    const started = performance.now();
    const answered = (status: number | 'no_answer') => metrics.serviceAnswered({ path, status }, (performance.now() - started) / 1000);
    const { method, headers, body } = init();
    try {
      const response = await request(new URL(`${baseUrl}${path}`), {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
        body,
        timeoutMs,
      });
      answered(response.status);
      return response;
    } catch (error) {
      answered('no_answer');
      throw transportFailure(error);
    }
  }

  /**
   * The successful response of one call, after at most one refresh; its body is the caller's to
   * read. With `timeoutMs`, the call fails as unanswered when that is up, even while it waits for
   * its token: the refresh goes on for the next call to use.
   */
  async function call(userId: number, path: string, init: RequestInit, timeoutMs?: number): Promise<ServiceAnswer> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    const msLeft = () => (deadline === undefined ? undefined : Math.max(1, deadline - Date.now()));
    const token = await tokenBefore(deadline, accessTokens.accessTokenFor(userId));
    let response = await send(token, path, init, msLeft());
    if (response.status === 401) {
      response = await send(await tokenBefore(deadline, accessTokens.replaceRejected(userId, token)), path, init, msLeft());
    }
    const failure = await failureOf(response, clock());
    if (failure?.retryAfterMs !== undefined) metrics.rateLimited(failure.retryAfterMs / 1000);
    if (failure) throw failure;
    return response;
  }

  return {
    async postJson(userId, path, body) {
      const text = JSON.stringify(body);
      await call(userId, path, () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: text }));
    },
    async postMultipart(userId, path, parts) {
      // A function, so that the 401 retry reads the file again from its start.
      await call(userId, path, () => ({ method: 'POST', body: multipartBody(parts) }));
    },
    async getText(userId, path, { timeoutMs } = {}) {
      const response = await call(userId, path, () => ({ method: 'GET', headers: { accept: 'application/json' } }), timeoutMs);
      return response.text();
    },
  };
}

/** The token `coming`, unless `deadline` (epoch ms) comes first: then the call fails as unanswered. */
async function tokenBefore(deadline: number | undefined, coming: Promise<string>): Promise<string> {
  if (deadline === undefined) return coming;
  const token = await beforeDeadline(coming, deadline);
  if (token === TIMED_OUT) throw transportFailure(new Error('its access token was not ready in time'));
  return token;
}
