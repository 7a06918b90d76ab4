import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { signUpNewUser, startConnect } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;
let client: CookieClient;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'info' });
  client = stack.browser();
  await signUpNewUser(client);
});
afterAll(async () => {
  await stack.close();
});

type LogLine = Record<string, unknown>;

/** The request's lines, once its last one, written when the answer is sent, is in. */
function linesOf(reqId: string): Promise<LogLine[]> {
  return eventually(`the log of request ${reqId}`, async () => {
    const lines = stack.logs.map((line) => JSON.parse(line) as LogLine).filter((line) => line.reqId === reqId);
    return lines.some((line) => line.msg === 'request answered') ? lines : undefined;
  });
}

/** A callback whose code the service refuses: the app logs about it while answering. */
async function refusedCallback(requestId: string): Promise<Response> {
  const callback = await startConnect(client);
  callback.searchParams.set('code', 'not-a-code');
  return client.request(callback.href, { headers: { 'x-request-id': requestId } });
}

describe('request logs', () => {
  it('carry the request’s id on every line written while answering it, and echo it', async () => {
    const response = await refusedCallback('checkout-7f3a_2');
    expect(response.headers.get('x-request-id')).toBe('checkout-7f3a_2');
    const lines = await linesOf('checkout-7f3a_2');
    expect(lines.map((line) => line.msg)).toEqual(['code exchange failed', 'request answered']);
  });

  it('end with one line at info naming the method, the route pattern, the status and the time, and nothing else', async () => {
    const response = await client.request('/api/sync/status?from=yesterday', { headers: { 'x-request-id': 'status-1' } });
    expect(response.status).toBe(400);
    const [answered] = await linesOf('status-1');
    expect(answered).toMatchObject({ level: 30, msg: 'request answered', method: 'GET', route: '/api/sync/status', status: 400 });
    expect(answered!.ms).toEqual(expect.any(Number));
    // Not the request's headers, so neither its cookie nor any authorization.
    expect(Object.keys(answered!).sort()).toEqual([
      'hostname',
      'level',
      'method',
      'ms',
      'msg',
      'name',
      'pid',
      'reqId',
      'route',
      'status',
      'time',
    ]);
  });

  it.each(['a'.repeat(65), 'two words', '{"level":60}', ''])(
    'replace an incoming id that is not a short safe token (%j)',
    async (unsafe) => {
      const response = await client.request('/healthz', { headers: { 'x-request-id': unsafe } });
      const id = response.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await linesOf(id)).toHaveLength(1);
    },
  );
});

describe('the route label of requests (logs and metrics)', () => {
  /** Every `route` label value of the request metric so far. */
  async function routeLabels(): Promise<Set<string>> {
    const text = await stack.metrics.registry.metrics();
    return new Set(
      [...text.matchAll(/^athlete_sync_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((match) => match[1]!),
    );
  }

  it('is the matched route pattern or one word, never the path as sent, so case variants make no new series', async () => {
    const before = await routeLabels();
    const anonymous = stack.browser();
    const variants = [
      '/api/sync/overview',
      '/API/sync/overview',
      '/api/SYNC/OVERVIEW',
      '/Api/Sync/Overview/',
      '/api/sync/overview/1/2',
      '/ASSETS/style.css',
      // A kind's page in another case, signed out.
      KINDS[0]!.page.path.toUpperCase(),
      '/no-such-page-1',
      '/no-such-page-2',
    ];
    for (const path of variants) await anonymous.get(path);
    for (const path of ['/API/SYNC/OVERVIEW', '/api/Sync/overview']) expect((await client.get(path)).status).toBe(200);
    const added = [...(await routeLabels())].filter((label) => !before.has(label));
    expect(added.sort()).toEqual(['/api/sync/overview', 'unmatched'].filter((label) => !before.has(label)));
  });
});
