import fc from 'fast-check';
import { describe, it } from 'vitest';
import { fitFile } from '../helpers/fit-files.js';
import {
  expectOnlyHarmlessAnswers,
  hostileBody,
  inAnyCharset,
  pathSegment,
  useFuzzedStack,
  type ApiRequest,
} from '../helpers/json-fuzz.js';
import { uploadActivity } from './helpers.js';

/**
 * The activities' JSON routes fed random and hostile bodies and ids (test/helpers/json-fuzz.ts); the
 * uploads are multipart, with tests of their own.
 */

/**
 * About 100 requests per unit of weight below, ten times fast-check's default. Each run draws a new
 * seed (test/helpers/property-seed.ts), so runs add up to far more cases than any one could hold.
 */
const RUNS = 500;

/** Stands for the id of an activity the signed-in user owns, known only once the test has started. */
const EXISTING_ACTIVITY = 'existing-activity';

const fuzzed = useFuzzedStack(async (signedIn) => ({ [EXISTING_ACTIVITY]: String((await uploadActivity(signedIn, fitFile(1))).id) }));

const ACTIVITY_FIELDS = ['name', 'metadata'];
const validActivityChange = { name: 'Evening ride', metadata: { lap: 1 } };

const requests: fc.Arbitrary<ApiRequest> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(pathSegment(EXISTING_ACTIVITY), hostileBody(validActivityChange, ACTIVITY_FIELDS))
      .map(([id, text]) => ({ client: 'signedIn' as const, method: 'PATCH', path: `/api/activities/${id}`, body: text })),
  },
  {
    weight: 1,
    arbitrary: pathSegment(EXISTING_ACTIVITY).map((id) => ({
      client: 'signedIn' as const,
      method: 'DELETE',
      path: `/api/activities/${id}`,
    })),
  },
  { weight: 1, arbitrary: fc.constant({ client: 'signedIn' as const, method: 'GET', path: '/api/activities' }) },
);

describe('the activities’ JSON API under random and hostile input', () => {
  it(`answers ${RUNS} requests with 2xx or 4xx only, and every 4xx changes nothing`, { timeout: 120_000 }, async () => {
    await expectOnlyHarmlessAnswers({ ...fuzzed, requests: inAnyCharset(requests), runs: RUNS });
  });
});
