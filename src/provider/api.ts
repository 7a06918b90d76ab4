import { performance } from 'node:perf_hooks';
import type { AccessTokens } from '../connections/access-token.js';
import type { Metrics } from '../observability/metrics.js';
import { keepAliveRequests, type ServiceAnswer } from './keep-alive-request.js';
import { failureOf, transportFailure } from './responses.js';

/**
 * The typed calls to the service's data endpoints (section 4). Every call carries a Bearer token
 * from AccessTokens; a 401 gets one refresh and one retry, never more. Failures are thrown as
 * ServiceError, classified in responses.ts. The upload, wellness and nutrition response bodies are
 * not shown (§4.6): success is the status.
 */
export interface ServiceApi {
  upsertNutrition(userId: number, record: NutritionRecord): Promise<void>;
  upsertWellness(userId: number, record: WellnessRecord): Promise<void>;
  uploadActivity(userId: number, upload: ActivityUpload): Promise<void>;
  /**
   * Section 4.3 shows neither query parameters nor a response shape: the body comes back as text, for
   * the caller to read leniently. `timeoutMs` bounds each request more tightly than ATHLETE_TIMEOUT_S.
   */
  listWorkouts(userId: number, options?: { timeoutMs?: number }): Promise<string>;
}

/** Section 2.4. */
export interface NutritionRecord {
  date: string;
  items: Array<{ name: string; carbs: number; logged_at: string; absorptionType?: string }>;
  rawJson: Record<string, unknown>;
}

/** Section 2.3: only the fields the person entered are present. */
export interface WellnessRecord {
  date: string;
  hrv?: number;
  restingHr?: number;
  sleepSecs?: number;
  weight?: number;
  vo2max?: number;
  rawJson: Record<string, unknown>;
}

/** Section 2.2: the original file, as the person sent it. */
export interface ActivityUpload {
  file: Uint8Array;
  fileName: string;
  name: string;
  metadata: Record<string, unknown>;
}

export interface ServiceApiSettings {
  baseUrl: string;
  timeoutS: number;
  accessTokens: AccessTokens;
  clock: () => Date;
  metrics: Metrics;
}

/** What one call sends; a function, so the 401 retry builds a fresh body. */
type RequestInit = () => { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | FormData; timeoutMs?: number };

export function createServiceApi({ baseUrl, timeoutS, accessTokens, clock, metrics }: ServiceApiSettings): ServiceApi {
  const request = keepAliveRequests(timeoutS * 1000);

  async function send(token: string, path: string, init: RequestInit): Promise<ServiceAnswer> {
    const started = performance.now();
    const answered = (status: number | 'no_answer') => metrics.serviceAnswered({ path, status }, (performance.now() - started) / 1000);
    const { method, headers, body, timeoutMs } = init();
    try {
      const response = await request(new URL(`${baseUrl}${path}`), { method, headers: { authorization: `Bearer ${token}`, ...headers }, body, timeoutMs });
      answered(response.status);
      return response;
    } catch (error) {
      answered('no_answer');
      throw transportFailure(error);
    }
  }

  /** The successful response of one call, after at most one refresh; its body is the caller's to read. */
  async function call(userId: number, path: string, init: RequestInit): Promise<ServiceAnswer> {
    const token = await accessTokens.accessTokenFor(userId);
    let response = await send(token, path, init);
    if (response.status === 401) {
      response = await send(await accessTokens.replaceRejected(userId, token), path, init);
    }
    const failure = await failureOf(response, clock());
    if (failure?.retryAfterMs !== undefined) metrics.rateLimited(failure.retryAfterMs / 1000);
    if (failure) throw failure;
    return response;
  }

  async function post(userId: number, path: string, init: RequestInit): Promise<void> {
    await call(userId, path, init);
  }

  const json = (body: unknown): RequestInit => () => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  /** The platform's encoder writes the multipart body and its boundary (keep-alive-request.ts; no hand-written multipart). */
  const multipart = ({ file, fileName, name, metadata }: ActivityUpload): RequestInit => () => {
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'application/octet-stream' }), fileName);
    form.append('name', name);
    form.append('metadata', JSON.stringify(metadata));
    return { method: 'POST', body: form };
  };

  return {
    upsertNutrition: (userId, record) => post(userId, '/api/nutrition', json(record)),
    upsertWellness: (userId, record) => post(userId, '/api/wellness', json(record)),
    uploadActivity: (userId, upload) => post(userId, '/api/workouts/upload-fit', multipart(upload)),
    listWorkouts: async (userId, { timeoutMs } = {}) => {
      const response = await call(userId, '/api/workouts', () => ({ method: 'GET', headers: { accept: 'application/json' }, timeoutMs }));
      return response.text();
    },
  };
}
