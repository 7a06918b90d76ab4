import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedisConnection } from '../../src/queue/redis.js';
import type { RedisConnection } from '../../src/queue/redis-target.js';
import { fieldNames } from '../../src/fields/field-values.js';
import { MEAL_AMOUNTS } from '../../src/nutrition/meal.fields.js';
import { uploadActivity } from '../helpers/activities.js';
import { fitFile } from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { addMeal } from '../helpers/meals.js';
import { MEASUREMENT_NAMES, putWellness } from '../helpers/wellness.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { seedProperties } from '../helpers/property-seed.js';

seedProperties();

/**
 * Every JSON route, fed random and hostile bodies, parameters and queries: the app answers each
 * with a 2xx or a 4xx, never a 5xx, and a 4xx leaves the database and Redis as they were, but for
 * the form token of a signed-in session that had none (withoutFirstFormTokens).
 */

/**
 * About 40 requests per unit of weight below, ten times fast-check's default. Each run draws a new
 * seed (test/helpers/property-seed.ts), so runs add up to far more cases than any one could hold,
 * and what one finds is kept in FOUND_BEFORE.
 */
const RUNS = 1000;

let stack: Stack;
let redis: RedisConnection;
let signedIn: CookieClient;
let anonymous: CookieClient;
let existingMealId: number;
let existingActivityId: number;

beforeAll(async () => {
  stack = await startStack();
  redis = createRedisConnection(stack.config.redis.target);
  signedIn = stack.browser();
  await signUpNewUser(signedIn, 'America/New_York');
  existingMealId = (await addMeal(signedIn, { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00-05:00' })).id;
  await putWellness(signedIn, EXISTING_WELLNESS_DAY, { weight: 70 });
  existingActivityId = (await uploadActivity(signedIn, fitFile(1))).id;
  anonymous = stack.browser();
  tables = (await stack.db.introspection.getTables()).map((table) => table.name).sort();
});
afterAll(async () => {
  redis.disconnect();
  await stack.close();
});

/** The app's tables: the schema stays as the migrations left it while the test runs. */
let tables: string[];

/** Every row of every table, so a refused request can be shown to have changed nothing. */
async function databaseSnapshot(): Promise<string> {
  const contents: unknown[] = [];
  for (const table of tables)
    contents.push([
      table,
      await stack.db
        .selectFrom(table as 'users')
        .selectAll()
        .execute(),
    ]);
  return JSON.stringify(contents);
}

/**
 * Each key under a prefix, then its value: a session's JSON (GET), any other key's DUMP. One
 * script, so one round trip per snapshot: on a busy machine each round trip waits for both
 * processes to be scheduled, which is most of a case's time.
 */
const READ_KEYS = `
  local found = {}
  for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
    table.insert(found, key)
    table.insert(found, string.find(key, ':session:', 1, true) and redis.call('GET', key) or redis.call('DUMP', key))
  end
  return found`;

const keysAndValues = z.array(z.instanceof(Buffer));

/**
 * Every key under the stack's prefix with its value (a session's fields, any other key's DUMP in
 * base64). A session's cookie expiry moves on every request (sliding idle timeout) and failed
 * sign-ins are counted on purpose (throttling), so those two are not changes a refused request
 * must avoid.
 */
async function redisSnapshot(): Promise<Record<string, unknown>> {
  const prefix = stack.config.redis.prefix;
  const found = keysAndValues.parse(await redis.callBuffer('EVAL', READ_KEYS, 0, `${prefix}:*`));
  const entries: Array<[string, unknown]> = [];
  for (let index = 0; index < found.length; index += 2) {
    const key = found[index]!.toString();
    if (!key.startsWith(`${prefix}:attempts:`)) entries.push([key, valueOf(key, found[index + 1]!)]);
  }
  return Object.fromEntries(entries);
}

function valueOf(key: string, value: Buffer): unknown {
  if (!isSession(key)) return value.toString('base64');
  const { cookie: _movesOnEveryRequest, ...session } = JSON.parse(value.toString()) as Record<string, unknown>;
  return session;
}

const isSession = (key: string) => key.includes(':session:');

interface Snapshot {
  database: string;
  redis: Record<string, unknown>;
}

const snapshot = async (): Promise<Snapshot> => ({ database: await databaseSnapshot(), redis: await redisSnapshot() });

/**
 * What a refusal may have changed, taken back: the form token of a signed-in session that had none.
 * A refusal's error page has a sign-out form, whose token it stores (src/web/pages.ts); replacing
 * a token the session already had would still show, as would any other change.
 */
function withoutFirstFormTokens(after: Snapshot, before: Snapshot): Snapshot {
  const redisAfter = Object.entries(after.redis).map(([key, value]) => {
    const had = before.redis[key];
    if (!isSession(key) || typeof had !== 'object' || had === null || 'csrfToken' in had) return [key, value];
    const { csrfToken: _firstFormToken, ...session } = value as Record<string, unknown>;
    return [key, session];
  });
  return { database: after.database, redis: Object.fromEntries(redisAfter) };
}

const hostileDates = fc.constantFrom(
  '9999-12-31T23:30:00Z',
  '0000-01-01T00:00:00Z',
  '+010000-01-01',
  '-000001-12-31',
  '1899-12-31T23:59:59Z',
  '1900-01-01T00:00:00+14:00',
  '2100-12-31T23:59:59-12:00',
  '2026-02-30',
  '2026-11-23T10:00:00+00:53:28',
  '1910-06-01T12:00:00',
  '2026-03-29T02:30:00',
  '2026-11-23T10:00:00.123456Z',
  '2026-11-23',
);
const hostileStrings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', 'Oats\u0007', '\u202Eevil', '0x10', '0b101', '1e3', 'NaN', 'Infinity', '__proto__', 'x'.repeat(5000)),
  hostileDates,
);
const hostileNumbers = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, 5e-324, -0, 2 ** 53, -(2 ** 53), 0.1 + 0.2, 1000.0000001),
);
const hostileValue = fc.oneof(hostileStrings, hostileNumbers, fc.jsonValue({ maxDepth: 3 }), fc.constant(null));

const MEAL_FIELDS = ['name', 'carbs', ...fieldNames(MEAL_AMOUNTS), 'absorptionType', 'logged_at'];
const ACCOUNT_FIELDS = ['email', 'password', 'timezone'];
const fieldName = fc.oneof(
  fc.constantFrom(...MEAL_FIELDS, ...ACCOUNT_FIELDS, ...MEASUREMENT_NAMES, '__proto__', 'constructor'),
  fc.string({ maxLength: 12 }),
);

const validMeal = { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00' };
const validWellness = { hrv: 48.5, restingHr: 52, sleepSecs: 27000 };
const validAccount = { email: 'fuzz@example.com', password: 'a long password', timezone: 'Europe/Berlin' };
const validActivityChange = { name: 'Evening ride', metadata: { lap: 1 } };

/** A valid body with one field made hostile reaches deeper than noise; noise and raw text cover the rest. */
const body = (valid: Record<string, unknown>) =>
  fc.oneof(
    fc.record({ field: fieldName, value: hostileValue }).map(({ field, value }) => JSON.stringify({ ...valid, [field]: value })),
    fc.dictionary(fieldName, hostileValue, { maxKeys: 8 }).map((value) => JSON.stringify(value)),
    hostileValue.map((value) => JSON.stringify(value)),
    fc.constantFrom(
      '{"name":"a","name":"b","carbs":1,"logged_at":"2026-03-10T08:15:00Z"}',
      '{"__proto__":{"carbs":1},"name":"Oats","carbs":1,"logged_at":"2026-03-10T08:15:00Z"}',
      '{"constructor":{"prototype":{"admin":true}}}',
      '{"name":',
      '',
      'null',
      '[]',
      '"text"',
      '{"carbs":1e999}',
      // In UTF-16, 䄢 holds the byte of a quote: a depth check reading UTF-8 would skip the brackets.
      `{"name":"\u4122","metadata":{"d":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    ),
  );

/** An import: the whole body made hostile, or a few items of which some have a hostile field. */
const batchBody = fc.oneof(
  body({ items: [validMeal] }),
  fc
    .array(
      fc.oneof(
        fc.constant(validMeal),
        fc.record({ field: fieldName, value: hostileValue }).map(({ field, value }) => ({ ...validMeal, [field]: value })),
      ),
      { maxLength: 4 },
    )
    .map((items) => JSON.stringify({ items })),
);

/** A day the signed-in user recorded wellness for before the test started. */
const EXISTING_WELLNESS_DAY = '2026-03-11';

/** Stand for the ids of a meal and an activity the signed-in user owns, known only once the test has started. */
const EXISTING_MEAL = 'existing-meal';
const EXISTING_ACTIVITY = 'existing-activity';
const pathSegment = (existing: string) =>
  fc.oneof(
    fc.constantFrom(existing, '0', '-1', '1.5', '1e3', '9'.repeat(40), '%00', '..', 'NaN'),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
const queryValue = fc.oneof(hostileStrings, hostileDates).map(encodeURIComponent);
const query = (names: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 }).map(encodeURIComponent)), queryValue), { maxLength: 4 })
    .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

interface ApiRequest {
  client: 'signedIn' | 'anonymous';
  method: string;
  path: string;
  body?: string;
  /** The body's declared charset, and the one it is sent in; none: UTF-8, undeclared. */
  charset?: string;
}

const UTF8_SPELLINGS = ['utf-8', 'UTF-8', '"utf-8"', 'Utf-8'];

/** Mostly UTF-8, as JSON must be (RFC 8259 §8.1), declared or not, in any spelling; sometimes another charset. */
const charset = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...UTF8_SPELLINGS) },
  { weight: 2, arbitrary: fc.constantFrom('utf-16le', 'utf-16be', 'iso-8859-1', 'utf-32', 'utf8', 'us-ascii') },
);

/** The body's bytes in its charset; in one Node does not write (UTF-32), its UTF-8 bytes, which it is not. */
function encoded(text: string, declared: string | undefined): Buffer {
  if (declared === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (declared === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  if (declared === 'iso-8859-1') return Buffer.from(text, 'latin1');
  return Buffer.from(text);
}

/** Sign-up and sign-in hash a password (tens of milliseconds each), so they are drawn less often. */
const requestOfAnyCharset: fc.Arbitrary<ApiRequest> = fc.oneof(
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
  {
    weight: 2,
    arbitrary: fc
      .tuple(pathSegment(EXISTING_ACTIVITY), body(validActivityChange))
      .map(([id, text]) => ({ client: 'signedIn' as const, method: 'PATCH', path: `/api/activities/${id}`, body: text })),
  },
  { weight: 2, arbitrary: query(['date']).map((q) => ({ client: 'signedIn' as const, method: 'GET', path: `/api/meals?${q}` })) },
  {
    weight: 2,
    arbitrary: query(['from', 'to']).map((q) => ({ client: 'signedIn' as const, method: 'GET', path: `/api/sync/status?${q}` })),
  },
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

const request: fc.Arbitrary<ApiRequest> = fc
  .tuple(requestOfAnyCharset, charset)
  .map(([apiRequest, drawn]) => (apiRequest.body === undefined || drawn === undefined ? apiRequest : { ...apiRequest, charset: drawn }));

/**
 * Counterexamples random runs found, tried first on every run and in this order: the stores carry
 * over from one request to the next, and the first one needs a session no page was shown to yet.
 */
const FOUND_BEFORE: ApiRequest[] = [
  // `/api/..` is `/` once the URL is parsed: a page, refused without its form token (403), whose
  // error page stores the session's first form token.
  { client: 'signedIn', method: 'POST', path: '/api/..' },
];

async function send({ client, method, path, body: text, charset: declared }: ApiRequest): Promise<Response> {
  const sender = client === 'signedIn' ? signedIn : anonymous;
  const contentType = declared === undefined ? 'application/json' : `application/json; charset=${declared}`;
  const headers = text === undefined ? undefined : { 'content-type': contentType };
  const body = text === undefined ? undefined : encoded(text, declared);
  const target = path.replace(EXISTING_MEAL, String(existingMealId)).replace(EXISTING_ACTIVITY, String(existingActivityId));
  const response = await sender.request(target, { method, headers, body });
  await response.arrayBuffer();
  return response;
}

describe('the JSON API under random and hostile input', () => {
  it(`answers ${RUNS} requests with 2xx or 4xx only, and every 4xx changes nothing`, { timeout: 120_000 }, async () => {
    const statuses = new Map<number, number>();
    // What the stores hold before each request: after a refusal it must be the same, so only an
    // accepted request needs a new one.
    let before = await snapshot();
    await fc.assert(
      fc.asyncProperty(request, async (apiRequest) => {
        const response = await send(apiRequest);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, `${apiRequest.method} ${apiRequest.path}`).toBeLessThan(500);
        if (apiRequest.charset !== undefined && !UTF8_SPELLINGS.includes(apiRequest.charset))
          expect(response.status, `${apiRequest.method} ${apiRequest.path} in ${apiRequest.charset}`).toBe(415);
        const after = await snapshot();
        if (response.status >= 400)
          expect(withoutFirstFormTokens(after, before), `${apiRequest.method} ${apiRequest.path}`).toEqual(before);
        before = after;
      }),
      { numRuns: RUNS, examples: FOUND_BEFORE.map((apiRequest) => [apiRequest]) },
    );
    // The generators must reach both sides: some requests are accepted, most are refused.
    const accepted = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(RUNS);
  });
});
