import { writeRunResults } from '../run-results.js';
import type { BenchFlags } from './flags.js';
import type { BenchProfiling } from './stack.js';
import type { RateMeasurement } from './measure.js';

export interface BenchResults {
  flags: BenchFlags;
  /** The kind's single write and its bulk import (null: it has none), as the table names them. */
  routes: { single: string; bulk: string | null };
  syncQuietMs: number;
  floor: RateMeasurement;
  ingest: RateMeasurement;
  /** When the single-item ingest's slices ran, on the monotonic clock (µs) of V8's CPU profiles. */
  ingestWindowsUs: { from: number; to: number }[];
  /** The web process's CPU time (user and system) per request of the floor and per single write; null without /proc. */
  webCpuMs: { floor: number | null; ingest: number | null };
  /** null: the kind has no bulk import. */
  batch: RateMeasurement | null;
  /**
   * `workerCpuMsPerDay`: the workers' CPU time (user and system, from /proc) per day drained after
   * their first: unlike the rate, it hardly follows how busy the rest of the machine is. Null without /proc,
   * or when every day arrived before the bench first looked.
   */
  drain: { days: number; seconds: number; perSecond: number; workerCpuMsPerDay: number | null };
  ceiling: RateMeasurement;
  calls: { max: number; mean: number; naiveMax: number; naiveMean: number };
  latency: { days: number; p50Ms: number; p99Ms: number };
  signInBurst: RateMeasurement & { webPeakRssMbBefore: number | null; webPeakRssMbAfter: number | null };
  peakRssMb: Record<string, number | null>;
  /** Where the CPU profiles of `--profile web|worker` were written, each as its process stopped. */
  profiling: BenchProfiling | null;
}

export type Verdict = 'PASS' | 'MISS' | 'N/A';

export interface Target {
  name: string;
  measured: string;
  verdict: Verdict;
}

const verdict = (met: boolean | null): Verdict => (met === null ? 'N/A' : met ? 'PASS' : 'MISS');
const share = (part: number, whole: number) => part / whole;
const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
const fixed = (value: number, digits = 0) => value.toFixed(digits);

/** The targets, each as a share of a reference measured in the same run. */
export function targets(results: BenchResults): Target[] {
  const { floor, ingest, batch, drain, ceiling, calls, latency, peakRssMb } = results;
  // The app's processes: the sandbox stands in for the service and runs through tsx.
  const appPeaks = Object.entries(peakRssMb).filter(([process]) => process !== 'sandbox');
  const peaks = appPeaks.map(([, peak]) => peak).filter((peak): peak is number => peak !== null);
  const highest = Math.max(...peaks);
  return [
    {
      name: 'single-item ingest >= 50% of the /healthz floor',
      measured: percent(share(ingest.perSecond, floor.perSecond)),
      verdict: verdict(share(ingest.perSecond, floor.perSecond) >= 0.5),
    },
    {
      name: `single-item ingest p99 < 50 ms at ${results.flags.clients} clients`,
      measured: `${fixed(ingest.p99Ms, 1)} ms`,
      verdict: verdict(ingest.p99Ms < 50),
    },
    {
      name: 'bulk import >= 10x the single-item rate',
      measured: batch === null ? 'not available' : `${fixed(share(batch.perSecond, ingest.perSecond), 1)}x`,
      verdict: verdict(batch === null ? null : batch.perSecond >= 10 * ingest.perSecond),
    },
    {
      name: 'drain >= 60% of the ceiling',
      measured: percent(share(drain.perSecond, ceiling.perSecond)),
      verdict: verdict(share(drain.perSecond, ceiling.perSecond) >= 0.6),
    },
    {
      name: 'peak RSS < 150 MB, every process of the app',
      measured: `${fixed(highest)} MB (highest)`,
      verdict: verdict(peaks.length === appPeaks.length && highest < 150),
    },
    { name: 'upserts per (user, day) <= 1.1 (mean)', measured: fixed(calls.mean, 2), verdict: verdict(calls.mean <= 1.1) },
    {
      name: 'item -> synced p99 < 1 s beyond the quiet period',
      measured: `${fixed(latency.p99Ms)} ms`,
      verdict: verdict(latency.p99Ms < 1000),
    },
  ];
}

function rateRow(what: string, rate: RateMeasurement, unit: string, extra = ''): string[] {
  return [what, `${fixed(rate.perSecond)} ${unit}/s`, `p50 ${fixed(rate.p50Ms, 1)} ms, p99 ${fixed(rate.p99Ms, 1)} ms`, extra];
}

export function table(results: BenchResults): string {
  const { flags, routes, floor, ingest, webCpuMs, batch, drain, ceiling, calls, latency, signInBurst, peakRssMb } = results;
  const rows: string[][] = [
    ['measure', 'rate', 'latency', 'share / note'],
    rateRow('GET /healthz (floor)', floor, 'req', `${floor.count} requests`),
    rateRow(
      routes.single,
      ingest,
      'writes',
      `${percent(share(ingest.perSecond, floor.perSecond))} of floor, ${percent(share(ingest.perSecond, ceiling.perSecond))} of ceiling`,
    ),
    [
      'web CPU per request',
      '',
      '',
      `${fixed(webCpuMs.floor ?? Number.NaN, 2)} ms /healthz, ${fixed(webCpuMs.ingest ?? Number.NaN, 2)} ms ${routes.single}`,
    ],
    batch === null || routes.bulk === null
      ? ['bulk import', 'not available', '', `${flags.kind} has no bulk import`]
      : rateRow(routes.bulk, batch, 'writes', `${fixed(share(batch.perSecond, ingest.perSecond), 1)}x single write`),
    [
      'drain (workers)',
      `${fixed(drain.perSecond)} days/s`,
      '',
      `${drain.days} days in ${fixed(drain.seconds, 2)} s, ${percent(share(drain.perSecond, ceiling.perSecond))} of ceiling, worker CPU ${fixed(drain.workerCpuMsPerDay ?? Number.NaN, 2)} ms/day`,
    ],
    rateRow('ceiling (direct to sandbox)', ceiling, 'days', `${ceiling.count} upserts`),
    [
      'upserts per (user, day)',
      `max ${calls.max}, mean ${fixed(calls.mean, 2)}`,
      '',
      `naive: max ${calls.naiveMax}, mean ${fixed(calls.naiveMean, 2)}`,
    ],
    [
      'item -> synced, beyond quiet',
      '',
      `p50 ${fixed(latency.p50Ms)} ms, p99 ${fixed(latency.p99Ms)} ms`,
      `${latency.days} days, SYNC_QUIET_MS=${results.syncQuietMs}`,
    ],
    rateRow(
      'sign-in burst',
      signInBurst,
      'sign-ins',
      `web peak RSS ${fixed(signInBurst.webPeakRssMbBefore ?? Number.NaN)} -> ${fixed(signInBurst.webPeakRssMbAfter ?? Number.NaN)} MB`,
    ),
    ...Object.entries(peakRssMb).map(([process, peak]) => [
      `peak RSS: ${process}`,
      peak === null ? 'unknown' : `${fixed(peak)} MB`,
      '',
      '',
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join(' | ')
      .trimEnd();
  const heading = `${flags.kind}: ${flags.users} users x ${flags.days} days x ${flags.items} writes, ${flags.clients} clients, ${flags.workers} worker(s)`;
  const targetLines = targets(results).map((target) => `${target.verdict.padEnd(4)} ${target.name}: ${target.measured}`);
  return [
    heading,
    '',
    line(rows[0]!),
    widths.map((width) => '-'.repeat(width)).join('-|-'),
    ...rows.slice(1).map(line),
    '',
    'Targets',
    ...targetLines,
  ].join('\n');
}

/** Writes the results with their targets to `<directory>/<timestamp>.json`; returns its path. */
export function writeResults(results: BenchResults, startedAt: Date, directory: string): Promise<string> {
  return writeRunResults(directory, '', startedAt, { ...results, targets: targets(results) });
}
