import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { WAITING_READ_KEPT_MS } from '../../src/observability/work-gauges.js';
import { connectedUser } from '../helpers/flows.js';
import { workload } from '../helpers/kinds.js';
import { syncStatus } from '../helpers/sync-status.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

const DATE = '2026-04-01';

let stack: Stack;
let worker: Running;
let workerMetricsUrl: string;
/** The status the test kind's write was answered with. */
let writeStatus: number;

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

/** Scrapes the worker until the scrape shows `sample`, for at most the time a kept read of the outbox answers scrapes, and some. */
function scrapeUntil(sample: RegExp): Promise<string> {
  return eventually(
    `${sample.source} in a scrape`,
    async () => {
      const text = await scrapeWorker();
      return sample.test(text) ? text : undefined;
    },
    WAITING_READ_KEPT_MS + 5000,
  );
}

beforeAll(async () => {
  // Tokens that live 2 s are refreshed after 1 s: the worker refreshes before it can send.
  stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 2, retryAfterS: 1 } });
  const { client } = await connectedUser(stack);
  const metricsPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await stack.changeSandbox({ faultRate: 1, faultKinds: ['429'], faultTargets: ['data'] });
  worker = await startWorkerProcess(stack, { SYNC_QUIET_MS: '50', METRICS_PORT: String(metricsPort) });

  const written = await workload.write.send(client, DATE, 0);
  await written.arrayBuffer();
  writeStatus = written.status;
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
    const [method, route] = workload.write.route.split(' ') as [string, string];
    expect(writeStatus).toBeGreaterThanOrEqual(200);
    expect(hasSample(text, 'athlete_sync_http_request_duration_seconds_count', { method, route, status: String(writeStatus) })).toBe(true);
    expect(hasSample(text, 'athlete_sync_http_request_duration_seconds_bucket', { route: '/oauth/callback', status: '303' })).toBe(true);
  });

  it('a worker serves its own on METRICS_PORT: jobs, upserts, refreshes, 429s, waiting days and the queue', async () => {
    // Gauges read at scrape time: nothing waits now, and they say so rather than vanish (once the read
    // of the waiting entries kept from the scrapes while the day waited has run out).
    const text = await scrapeUntil(new RegExp(`^athlete_sync_outbox_entries_waiting\\{kind="${workload.syncKind}"\\} 0$`, 'm'));
    const expected: Array<[string, Record<string, string>?]> = [
      ['athlete_sync_job_duration_seconds_count', { kind: 'fresh-turn', outcome: 'done' }],
      // After a 429 the turn queues the person's next one, which waits for Retry-After in the budget.
      ['athlete_sync_job_duration_seconds_count', { kind: 'fresh-turn', outcome: 'again' }],
      ['athlete_sync_service_request_duration_seconds_count', { path: workload.servicePath, status: '429' }],
      ['athlete_sync_service_request_duration_seconds_bucket', { path: workload.servicePath, status: '201' }],
      ['athlete_sync_service_retry_after_seconds_sum'],
      ['athlete_sync_token_refreshes_total', { outcome: 'refreshed' }],
      ['athlete_sync_process_cpu_seconds_total'],
    ];
    for (const [name, labels] of expected) expect({ name, labels, found: hasSample(text, name, labels) }).toMatchObject({ found: true });
    expect(text).toMatch(new RegExp(`^athlete_sync_outbox_oldest_waiting_seconds\\{kind="${workload.syncKind}"\\} 0$`, 'm'));
    for (const lane of ['fresh', 'history']) {
      expect(text).toMatch(new RegExp(`^athlete_sync_queue_jobs\\{lane="${lane}",state="waiting"\\} \\d+$`, 'm'));
      expect(text).toMatch(new RegExp(`^athlete_sync_queue_jobs\\{lane="${lane}",state="failed"\\} 0$`, 'm'));
    }
  });

  it('the waiting-days gauges count a dirty day and its age, within WAITING_READ_KEPT_MS', async () => {
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    await stack.db.updateTable('outbox').set({ version: 99, updated_at: hourAgo }).where('subject', '=', DATE).execute();
    // The outbox was read within WAITING_READ_KEPT_MS: the scrapes answer from that read until it runs out.
    const text = await scrapeUntil(new RegExp(`^athlete_sync_outbox_oldest_waiting_seconds\\{kind="${workload.syncKind}"\\} 3\\d{3}`, 'm'));
    expect(text).toMatch(new RegExp(`^athlete_sync_outbox_entries_waiting\\{kind="${workload.syncKind}"\\} 1$`, 'm'));
    const age = Number(
      text.match(new RegExp(`^athlete_sync_outbox_oldest_waiting_seconds\\{kind="${workload.syncKind}"\\} (\\S+)$`, 'm'))?.[1],
    );
    expect(age).toBeGreaterThanOrEqual(3600);
    expect(age).toBeLessThan(3700);
  });

  it('nothing else is served on the metrics port', async () => {
    expect((await fetch(workerMetricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });
});
