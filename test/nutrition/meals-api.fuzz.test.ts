import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  expectOnlyHarmlessAnswers,
  fieldName,
  hostileBody,
  hostileValue,
  inAnyCharset,
  pathSegment,
  query,
  useFuzzedStack,
  type ApiRequest,
} from '../helpers/json-fuzz.js';
import { addMeal, AMOUNT_NAMES } from './helpers.js';

/** The meals' JSON routes fed random and hostile bodies, parameters and queries (test/helpers/json-fuzz.ts). */

/**
 * About 80 requests per unit of weight below, ten times fast-check's default. Each run draws a new
 * seed (test/helpers/property-seed.ts), so runs add up to far more cases than any one could hold.
 */
const RUNS = 1000;

/** Stands for the id of a meal the signed-in user owns, known only once the test has started. */
const EXISTING_MEAL = 'existing-meal';

const fuzzed = useFuzzedStack(async (signedIn) => {
  const existingMeal = await addMeal(signedIn, { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00-05:00' });
  return { [EXISTING_MEAL]: String(existingMeal.id) };
});

const MEAL_FIELDS = ['name', 'carbs', ...AMOUNT_NAMES, 'absorptionType', 'logged_at'];
const body = (valid: Record<string, unknown>) => hostileBody(valid, MEAL_FIELDS);

const validMeal = { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00' };

/** An import: the whole body made hostile, or a few items of which some have a hostile field. */
const batchBody = fc.oneof(
  body({ items: [validMeal] }),
  fc
    .array(
      fc.oneof(
        fc.constant(validMeal),
        fc.record({ field: fieldName(MEAL_FIELDS), value: hostileValue }).map(({ field, value }) => ({ ...validMeal, [field]: value })),
      ),
      { maxLength: 4 },
    )
    .map((items) => JSON.stringify({ items })),
);

const requests: fc.Arbitrary<ApiRequest> = fc.oneof(
  {
    weight: 4,
    arbitrary: body(validMeal).map((text) => ({ client: 'signedIn' as const, method: 'POST', path: '/api/meals', body: text })),
  },
  {
    weight: 2,
    arbitrary: batchBody.map((text) => ({ client: 'signedIn' as const, method: 'POST', path: '/api/meals/batch', body: text })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(pathSegment(EXISTING_MEAL), body({ carbs: 12 }))
      .map(([id, text]) => ({ client: 'signedIn' as const, method: 'PATCH', path: `/api/meals/${id}`, body: text })),
  },
  {
    weight: 2,
    arbitrary: pathSegment(EXISTING_MEAL).map((id) => ({ client: 'signedIn' as const, method: 'DELETE', path: `/api/meals/${id}` })),
  },
  { weight: 2, arbitrary: query(['date']).map((q) => ({ client: 'signedIn' as const, method: 'GET', path: `/api/meals?${q}` })) },
);

describe('the meals’ JSON API under random and hostile input', () => {
  it(`answers ${RUNS} requests with 2xx or 4xx only, and every 4xx changes nothing`, { timeout: 120_000 }, async () => {
    await expectOnlyHarmlessAnswers({ ...fuzzed, requests: inAnyCharset(requests), runs: RUNS });
  });
});
