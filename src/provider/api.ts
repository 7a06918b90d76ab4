import { performance } from 'node:perf_hooks';
import type { AccessTokens } from '../connections/access-token.js';
import type { Metrics } from '../observability/metrics.js';
import { failureOf, transportFailure } from './responses.js';

/**
 * The typed calls to the service's data endpoints (section 4). Every call carries a Bearer token
 * from AccessTokens; a 401 gets one refresh and one retry, never more. Failures are thrown as
 * ServiceError, classified in responses.ts. Response bodies are not shown (§4.6): success is the status.
 */
export interface ServiceApi {
  upsertNutrition(userId: number, record: NutritionRecord): Promise<void>;
}

/** Section 2.4. */
export interface NutritionRecord {
  date: string;
  items: Array<{ name: string; carbs: number; logged_at: string; absorptionType?: string }>;
  rawJson: Record<string, unknown>;
}

export interface ServiceApiSettings {
  baseUrl: string;
  timeoutS: number;
  accessTokens: AccessTokens;
  clock: () => Date;
  metrics: Metrics;
}

export function createServiceApi({ baseUrl, timeoutS, accessTokens, clock, metrics }: ServiceApiSettings): ServiceApi {
  async function send(token: string, path: string, body: unknown): Promise<Response> {
    const started = performance.now();
    const answered = (status: number | 'no_answer') => metrics.serviceAnswered({ path, status }, (performance.now() - started) / 1000);
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutS * 1000),
      });
      answered(response.status);
      return response;
    } catch (error) {
      answered('no_answer');
      throw transportFailure(error);
    }
  }

  async function postJson(userId: number, path: string, body: unknown): Promise<void> {
    const token = await accessTokens.accessTokenFor(userId);
    let response = await send(token, path, body);
    if (response.status === 401) {
      await response.body?.cancel();
      response = await send(await accessTokens.replaceRejected(userId, token), path, body);
    }
    const failure = await failureOf(response, clock());
    if (failure?.retryAfterMs !== undefined) metrics.rateLimited(failure.retryAfterMs / 1000);
    if (failure) throw failure;
    await response.body?.cancel();
  }

  return {
    upsertNutrition: (userId, record) => postJson(userId, '/api/nutrition', record),
  };
}
