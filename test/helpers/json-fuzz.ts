import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { z } from 'zod';
import { createRedisConnection } from '../../src/redis/redis.js';
import type { RedisConnection } from '../../src/redis/redis-target.js';
import { signUpNewUser } from './flows.js';
import type { CookieClient } from './http-client.js';
import { seedProperties } from './property-seed.js';
import { startStack, type Stack } from './stack.js';

/**
 * Random and hostile bodies, parameters and queries for the app's JSON routes, and the run that
 * sends them: the app answers each with a 2xx or a 4xx, never a 5xx, and a 4xx leaves the database
 * and Redis as they were, but for the form token of a signed-in session that had none
 * (withoutFirstFormTokens).
 */

export const hostileDates = fc.constantFrom(
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
export const hostileValue = fc.oneof(hostileStrings, hostileNumbers, fc.jsonValue({ maxDepth: 3 }), fc.constant(null));

/** A field's name: one the routes read, one JavaScript treats specially, or noise. */
export const fieldName = (known: readonly string[]) =>
  fc.oneof(fc.constantFrom(...known, '__proto__', 'constructor'), fc.string({ maxLength: 12 }));

/**
 * A valid body with one field made hostile reaches deeper than noise; noise and raw text cover the
 * rest. `known`: the field names the routes read.
 */
export const hostileBody = (valid: Record<string, unknown>, known: readonly string[]) =>
  fc.oneof(
    fc.record({ field: fieldName(known), value: hostileValue }).map(({ field, value }) => JSON.stringify({ ...valid, [field]: value })),
    fc.dictionary(fieldName(known), hostileValue, { maxKeys: 8 }).map((value) => JSON.stringify(value)),
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

/** A path segment where an id goes: `existing` (a placeholder `send` replaces), or one that names nothing. */
export const pathSegment = (existing: string) =>
  fc.oneof(
    fc.constantFrom(existing, '0', '-1', '1.5', '1e3', '9'.repeat(40), '%00', '..', 'NaN'),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
const queryValue = fc.oneof(hostileStrings, hostileDates).map(encodeURIComponent);
export const query = (names: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 }).map(encodeURIComponent)), queryValue), { maxLength: 4 })
    .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

export interface ApiRequest {
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

/** The requests, each body sent in a charset drawn for it. */
export const inAnyCharset = (requests: fc.Arbitrary<ApiRequest>): fc.Arbitrary<ApiRequest> =>
  fc
    .tuple(requests, charset)
    .map(([apiRequest, drawn]) => (apiRequest.body === undefined || drawn === undefined ? apiRequest : { ...apiRequest, charset: drawn }));

/** The body's bytes in its charset; in one Node does not write (UTF-32), its UTF-8 bytes, which it is not. */
function encoded(text: string, declared: string | undefined): Buffer {
  if (declared === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (declared === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  if (declared === 'iso-8859-1') return Buffer.from(text, 'latin1');
  return Buffer.from(text);
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

interface Snapshot {
  database: string;
  redis: Record<string, unknown>;
}

/** What a stack's database and Redis hold, to show a refused request changed nothing. */
class Stores {
  private constructor(
    private readonly stack: Stack,
    private readonly redis: RedisConnection,
    /** The app's tables: the schema stays as the migrations left it while the test runs. */
    private readonly tables: string[],
  ) {}

  static async of(stack: Stack): Promise<Stores> {
    const tables = (await stack.db.introspection.getTables()).map((table) => table.name).sort();
    return new Stores(stack, createRedisConnection(stack.config.redis.target), tables);
  }

  async snapshot(): Promise<Snapshot> {
    return { database: await this.databaseSnapshot(), redis: await this.redisSnapshot() };
  }

  close(): void {
    this.redis.disconnect();
  }

  /** Every row of every table. */
  private async databaseSnapshot(): Promise<string> {
    const contents: unknown[] = [];
    for (const table of this.tables)
      contents.push([
        table,
        await this.stack.db
          .selectFrom(table as 'users')
          .selectAll()
          .execute(),
      ]);
    return JSON.stringify(contents);
  }

  /**
   * Every key under the stack's prefix with its value (a session's fields, any other key's DUMP in
   * base64). A session's cookie expiry moves on every request (sliding idle timeout) and failed
   * sign-ins are counted on purpose (throttling), so those two are not changes a refused request
   * must avoid.
   */
  private async redisSnapshot(): Promise<Record<string, unknown>> {
    const prefix = this.stack.config.redis.prefix;
    const found = keysAndValues.parse(await this.redis.callBuffer('EVAL', READ_KEYS, 0, `${prefix}:*`));
    const entries: Array<[string, unknown]> = [];
    for (let index = 0; index < found.length; index += 2) {
      const key = found[index]!.toString();
      if (!key.startsWith(`${prefix}:attempts:`)) entries.push([key, valueOf(key, found[index + 1]!)]);
    }
    return Object.fromEntries(entries);
  }
}

function valueOf(key: string, value: Buffer): unknown {
  if (!isSession(key)) return value.toString('base64');
  const { cookie: _movesOnEveryRequest, ...session } = JSON.parse(value.toString()) as Record<string, unknown>;
  return session;
}

const isSession = (key: string) => key.includes(':session:');

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

/** The stack a file fuzzes, with its clients and the values of its placeholders. */
export type FuzzedStack = Readonly<Pick<FuzzRun, 'stack' | 'clients' | 'placeholders'>>;

/**
 * The file's FuzzedStack, started before its tests and closed after them (read it inside a test or
 * hook), its fast-check runs seeded (property-seed.ts). The signed-in client is a person signed up
 * in a zone behind UTC, whose data `prepare` writes; it returns the placeholders' values.
 */
export function useFuzzedStack(prepare: (signedIn: CookieClient) => Promise<Record<string, string>>): FuzzedStack {
  seedProperties();
  const started: Partial<FuzzRun> = {};
  beforeAll(async () => {
    const stack = await startStack();
    started.stack = stack;
    const signedIn = stack.browser();
    await signUpNewUser(signedIn, 'America/New_York');
    started.placeholders = await prepare(signedIn);
    started.clients = { signedIn, anonymous: stack.browser() };
  });
  afterAll(async () => {
    await started.stack?.close();
  });
  return started as FuzzedStack;
}

export interface FuzzRun {
  stack: Stack;
  clients: Record<ApiRequest['client'], CookieClient>;
  /** The requests to draw. */
  requests: fc.Arbitrary<ApiRequest>;
  runs: number;
  /** Placeholders in the requests' paths, each replaced by what it stands for (an id known only once the test has started). */
  placeholders?: Record<string, string>;
  /** Requests tried first on every run, in this order. */
  examples?: ApiRequest[];
}

async function send(run: FuzzRun, { client, method, path, body: text, charset: declared }: ApiRequest): Promise<Response> {
  const contentType = declared === undefined ? 'application/json' : `application/json; charset=${declared}`;
  const headers = text === undefined ? undefined : { 'content-type': contentType };
  const body = text === undefined ? undefined : encoded(text, declared);
  const target = Object.entries(run.placeholders ?? {}).reduce(
    (replaced, [placeholder, value]) => replaced.replace(placeholder, value),
    path,
  );
  const response = await run.clients[client].request(target, { method, headers, body });
  await response.arrayBuffer();
  return response;
}

/** Sends `runs` requests: each is answered with a 2xx or a 4xx (415 for a body in another charset than UTF-8), and every 4xx changes nothing. */
export async function expectOnlyHarmlessAnswers(run: FuzzRun): Promise<void> {
  const stores = await Stores.of(run.stack);
  const statuses = new Map<number, number>();
  try {
    // What the stores hold before each request: after a refusal it must be the same, so only an
    // accepted request needs a new one.
    let before = await stores.snapshot();
    await fc.assert(
      fc.asyncProperty(run.requests, async (apiRequest) => {
        const response = await send(run, apiRequest);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, `${apiRequest.method} ${apiRequest.path}`).toBeLessThan(500);
        if (apiRequest.charset !== undefined && !UTF8_SPELLINGS.includes(apiRequest.charset))
          expect(response.status, `${apiRequest.method} ${apiRequest.path} in ${apiRequest.charset}`).toBe(415);
        const after = await stores.snapshot();
        if (response.status >= 400)
          expect(withoutFirstFormTokens(after, before), `${apiRequest.method} ${apiRequest.path}`).toEqual(before);
        before = after;
      }),
      { numRuns: run.runs, examples: (run.examples ?? []).map((apiRequest) => [apiRequest]) },
    );
  } finally {
    stores.close();
  }
  // The generators must reach both sides: some requests are accepted, most are refused.
  const accepted = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
  expect(accepted).toBeGreaterThan(0);
  expect(accepted).toBeLessThan(run.runs);
}
