import fc from 'fast-check';
import { describe, it } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { expectOnlyHarmlessAnswers, hostileBody, inAnyCharset, query, useFuzzedStack, type ApiRequest } from '../helpers/json-fuzz.js';

/**
 * The JSON routes of accounts and the sync status, and paths no route has, fed random and hostile
 * bodies, parameters and queries (test/helpers/json-fuzz.ts). Each kind's own routes are fuzzed
 * beside its other tests (test/<kind>/).
 */

/**
 * About 80 requests per unit of weight below, ten times fast-check's default. Each run draws a new
 * seed (test/helpers/property-seed.ts), so runs add up to far more cases than any one could hold,
 * and what one finds is kept in FOUND_BEFORE.
 */
const RUNS = 500;

const ACCOUNT_FIELDS = ['email', 'password', 'timezone'];
/** The fields the registered kinds declare (a meal item's amounts, a day's measurements), which the account's routes must refuse as well. */
const KIND_FIELDS = KINDS.flatMap((kind) => kind.fieldSets ?? []).flatMap((fieldSet) => Object.keys(fieldSet.fields));
const body = (valid: Record<string, unknown>) => hostileBody(valid, [...ACCOUNT_FIELDS, ...KIND_FIELDS]);

const validAccount = { email: 'fuzz@example.com', password: 'a long password', timezone: 'Europe/Berlin' };

const fuzzed = useFuzzedStack(async () => ({}));

/** Sign-up and sign-in hash a password (tens of milliseconds each), so they are drawn less often. */
const requests: fc.Arbitrary<ApiRequest> = fc.oneof(
  {
    weight: 2,
    arbitrary: query(['from', 'to']).map((q) => ({ client: 'signedIn' as const, method: 'GET', path: `/api/sync/status?${q}` })),
  },
  { weight: 1, arbitrary: fc.constant({ client: 'signedIn' as const, method: 'GET', path: '/api/me' }) },
  {
    weight: 1,
    arbitrary: body(validAccount).map((text) => ({ client: 'anonymous' as const, method: 'POST', path: '/api/signup', body: text })),
  },
  {
    weight: 1,
    arbitrary: body(validAccount).map((text) => ({ client: 'anonymous' as const, method: 'POST', path: '/api/login', body: text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), fc.string({ maxLength: 12 }).map(encodeURIComponent))
      .map(([method, rest]) => ({ client: 'signedIn' as const, method, path: `/api/${rest}` })),
  },
);

/**
 * Counterexamples random runs found, tried first on every run and in this order: the stores carry
 * over from one request to the next, and the first one needs a session no page was shown to yet.
 */
const FOUND_BEFORE: ApiRequest[] = [
  // `/api/..` is `/` once the URL is parsed: a page, refused without its form token (403), whose
  // error page stores the session's first form token.
  { client: 'signedIn', method: 'POST', path: '/api/..' },
];

describe('the JSON API under random and hostile input', () => {
  it(`answers ${RUNS} requests with 2xx or 4xx only, and every 4xx changes nothing`, { timeout: 120_000 }, async () => {
    await expectOnlyHarmlessAnswers({ ...fuzzed, requests: inAnyCharset(requests), runs: RUNS, examples: FOUND_BEFORE });
  });
});
