import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  expectOnlyHarmlessAnswers,
  hostileBody,
  hostileDates,
  inAnyCharset,
  query,
  useFuzzedStack,
  type ApiRequest,
} from '../helpers/json-fuzz.js';
import { MEASUREMENT_NAMES, putWellness } from './helpers.js';

/** The wellness days' JSON routes fed random and hostile bodies, parameters and queries (test/helpers/json-fuzz.ts). */

/**
 * About 80 requests per unit of weight below, ten times fast-check's default. Each run draws a new
 * seed (test/helpers/property-seed.ts), so runs add up to far more cases than any one could hold.
 */
const RUNS = 500;

/** A day the signed-in user recorded wellness for before the test started. */
const EXISTING_WELLNESS_DAY = '2026-03-11';

const fuzzed = useFuzzedStack(async (signedIn) => {
  await putWellness(signedIn, EXISTING_WELLNESS_DAY, { weight: 70 });
  return {};
});

const body = (valid: Record<string, unknown>) => hostileBody(valid, MEASUREMENT_NAMES);

const validWellness = { hrv: 48.5, restingHr: 52, sleepSecs: 27000 };

const requests: fc.Arbitrary<ApiRequest> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.oneof(hostileDates, fc.constant('2026-03-10')).map(encodeURIComponent), body(validWellness))
      .map(([date, text]) => ({ client: 'signedIn' as const, method: 'PUT', path: `/api/wellness/${date}`, body: text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(hostileDates, fc.constant(EXISTING_WELLNESS_DAY))
      .map((date) => ({ client: 'signedIn' as const, method: 'DELETE', path: `/api/wellness/${encodeURIComponent(date)}` })),
  },
  { weight: 2, arbitrary: query(['from', 'to']).map((q) => ({ client: 'signedIn' as const, method: 'GET', path: `/api/wellness?${q}` })) },
);

describe('the wellness days’ JSON API under random and hostile input', () => {
  it(`answers ${RUNS} requests with 2xx or 4xx only, and every 4xx changes nothing`, { timeout: 120_000 }, async () => {
    await expectOnlyHarmlessAnswers({ ...fuzzed, requests: inAnyCharset(requests), runs: RUNS });
  });
});
