import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * What the app reports about its work, at the few places where it happens: the request
 * middleware, the worker's job wrapper, the service API client and AccessTokens' refresh and
 * opening of stored tokens.
 * Entry points record into Prometheus; a test or a partner may pass any other recorder.
 */
export interface Metrics {
  /** An answered HTTP request; `route` is the Express route pattern, never the raw path. */
  requestServed(request: { method: string; route: string; status: number }, seconds: number): void;
  /** A queue job that ended: its name and what came of it. */
  jobDone(job: { kind: string; outcome: string }, seconds: number): void;
  /** A request to one of the service's data endpoints, answered with `status` or not at all. */
  serviceAnswered(request: { path: string; status: number | 'no_answer' }, seconds: number): void;
  /** The service answered 429 and asked us to wait this long. */
  rateLimited(retryAfterSeconds: number): void;
  /** A token request to refresh a grant: 'refreshed', or the kind of failure. */
  tokenRefreshed(outcome: string): void;
  /** Stored tokens this process could not open: sealed with a key (by its id) not configured here; the work waits. */
  tokenKeyMissing(keyId: string): void;
}

export interface PrometheusMetrics extends Metrics {
  /** What /metrics serves; scrape-time gauges (observability/work-gauges.ts) register here too. */
  registry: Registry;
}

export const METRIC_PREFIX = 'athlete_sync_';

/** A registry of this process's own, with Node's process metrics and the app's. */
export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });

  const requests = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests answered, by method, route pattern and status, and how long they took.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const jobs = new Histogram({
    name: `${METRIC_PREFIX}job_duration_seconds`,
    help: 'Queue jobs that ended, by job name and outcome, and how long they ran.',
    labelNames: ['kind', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const serviceRequests = new Histogram({
    name: `${METRIC_PREFIX}service_request_duration_seconds`,
    help: "Requests to the Athlete Data Service's data endpoints, by path and status (no_answer: timeout or reset).",
    labelNames: ['path', 'status'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers,
  });
  const retryAfter = new Histogram({
    name: `${METRIC_PREFIX}service_retry_after_seconds`,
    help: 'Rate limits (429) from the Athlete Data Service, by the Retry-After they asked for.',
    buckets: [1, 5, 15, 60, 300, 900, 3600],
    registers,
  });
  const refreshes = new Counter({
    name: `${METRIC_PREFIX}token_refreshes_total`,
    help: 'Token refresh requests, by outcome: refreshed, retryable, needs-reconnect or permanent.',
    labelNames: ['outcome'],
    registers,
  });
  const keysMissing = new Counter({
    name: `${METRIC_PREFIX}token_key_missing_total`,
    help: 'Stored tokens this process could not open, by the id of the key that sealed them, not configured here (a newer key, or an older one dropped); the work waits.',
    labelNames: ['key_id'],
    registers,
  });

  return {
    registry,
    requestServed: (request, seconds) => requests.observe(request, seconds),
    jobDone: (job, seconds) => jobs.observe(job, seconds),
    serviceAnswered: (request, seconds) => serviceRequests.observe(request, seconds),
    rateLimited: (retryAfterSeconds) => retryAfter.observe(retryAfterSeconds),
    tokenRefreshed: (outcome) => refreshes.inc({ outcome }),
    tokenKeyMissing: (keyId) => keysMissing.inc({ key_id: keyId }),
  };
}
