import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { connectedUser } from '../helpers/flows.js';
import { addMeal, syncStatus } from '../helpers/meals.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

const DATE = '2026-04-01';

let stack: Stack;
let worker: Running;
let workerMetricsUrl: string;

/** Prometheus' text format: does a sample of `name` with at least these labels have a value above 0? */
function hasSample(text: string, name: string, labels: Record<string, string> = {}): boolean {
  return text.split('\n').some((line) => {
    const match = line.match(/^([a-z_]+)(?:\{(.*)\})? (\S+)$/);
    if (!match || match[1] !== name || !(Number(match[3]) > 0)) return false;
    return Object.entries(labels).every(([label, value]) => (match[2] ?? '').includes(`${label}="${value}"`));
  });
}

async function scrapeWorker(): Promise<string> {
  const response = await fetch(workerMetricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

beforeAll(async () => {
  // Tokens that live 2 s are refreshed after 1 s: the worker refreshes before it can send.
  stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 2, retryAfterS: 1 } });
  const { client } = await connectedUser(stack);
  const metricsPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await stack.changeSandbox({ faultRate: 1, faultKinds: ['429'], faultTargets: ['data'] });
  worker = await startWorkerProcess(stack, { SYNC_QUIET_MS: '50', METRICS_PORT: String(metricsPort) });

  await addMeal(client, { name: 'Banana', carbs: 27, logged_at: `${DATE}T10:00:00+02:00` });
  await eventually('a 429 from the service', async () =>
    hasSample(await scrapeWorker(), 'athlete_sync_service_retry_after_seconds_count') ? true : undefined,
  );
  await stack.changeSandbox({ faultRate: 0 });
  await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
}, 60_000);
afterAll(async () => {
  await worker.stop('SIGTERM');
  await stack.close();
});

describe('metrics', () => {
  it('the web counts requests by route pattern and status, with their latency', async () => {
    const text = await stack.metrics.registry.metrics();
    expect(
      hasSample(text, 'athlete_sync_http_request_duration_seconds_count', { method: 'POST', route: '/api/meals', status: '201' }),
    ).toBe(true);
    expect(hasSample(text, 'athlete_sync_http_request_duration_seconds_bucket', { route: '/oauth/callback', status: '303' })).toBe(true);
  });

  it('a worker serves its own on METRICS_PORT: jobs, upserts, refreshes, 429s, waiting days and the queue', async () => {
    const text = await scrapeWorker();
    const expected: Array<[string, Record<string, string>?]> = [
      ['athlete_sync_job_duration_seconds_count', { kind: 'fresh-turn', outcome: 'done' }],
      // After a 429 the turn queues the person's next one, which waits for Retry-After in the budget.
      ['athlete_sync_job_duration_seconds_count', { kind: 'fresh-turn', outcome: 'again' }],
      ['athlete_sync_service_request_duration_seconds_count', { path: '/api/nutrition', status: '429' }],
      ['athlete_sync_service_request_duration_seconds_bucket', { path: '/api/nutrition', status: '201' }],
      ['athlete_sync_service_retry_after_seconds_sum'],
      ['athlete_sync_token_refreshes_total', { outcome: 'refreshed' }],
      ['athlete_sync_process_cpu_seconds_total'],
    ];
    for (const [name, labels] of expected) expect({ name, labels, found: hasSample(text, name, labels) }).toMatchObject({ found: true });
    // Gauges read at scrape time: nothing waits now, and they say so rather than vanish.
    expect(text).toMatch(/^athlete_sync_outbox_entries_waiting\{kind="nutrition"\} 0$/m);
    expect(text).toMatch(/^athlete_sync_outbox_oldest_waiting_seconds\{kind="nutrition"\} 0$/m);
    for (const lane of ['fresh', 'backfill']) {
      expect(text).toMatch(new RegExp(`^athlete_sync_queue_jobs\\{lane="${lane}",state="waiting"\\} \\d+$`, 'm'));
      expect(text).toMatch(new RegExp(`^athlete_sync_queue_jobs\\{lane="${lane}",state="failed"\\} 0$`, 'm'));
    }
  });

  it('the waiting-days gauges count a dirty day and its age', async () => {
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    await stack.db.updateTable('outbox').set({ version: 99, updated_at: hourAgo }).where('subject', '=', DATE).execute();
    const text = await scrapeWorker();
    expect(text).toMatch(/^athlete_sync_outbox_entries_waiting\{kind="nutrition"\} 1$/m);
    const age = Number(text.match(/^athlete_sync_outbox_oldest_waiting_seconds\{kind="nutrition"\} (\S+)$/m)?.[1]);
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3700);
  });

  it('nothing else is served on the metrics port', async () => {
    expect((await fetch(workerMetricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });
});
