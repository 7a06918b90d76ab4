import type { AccessTokens } from '../connections/access-token.js';
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
}

export function createServiceApi({ baseUrl, timeoutS, accessTokens, clock }: ServiceApiSettings): ServiceApi {
  async function send(token: string, path: string, body: unknown): Promise<Response> {
    try {
      return await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutS * 1000),
      });
    } catch (error) {
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
    if (failure) throw failure;
    await response.body?.cancel();
  }

  return {
    upsertNutrition: (userId, record) => postJson(userId, '/api/nutrition', record),
  };
}
