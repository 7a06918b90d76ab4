import type { FreshPost } from '../launch.js';
import { percentile } from '../measure.js';
import { BENCH_SYNC_QUIET_MS } from '../stack.js';
import type { LiveRecord, Rebuild } from './live.js';
import type { StatementStat, StatementTime } from './statements.js';

/** The figures of one launch-scale run, and the launch's targets they are held to. */

export interface LaunchScaleFigures {
  people: number;
  days: number;
  rate: number;
  workers: number;
  backlogBuiltInS: number | null;
  statements: { atRest: StatementTime[]; underLoad: StatementTime[]; pgStatStatements: StatementStat[] | null };
  firstBuildS: number | null;
  failoverRebuildS: number | null;
  scrapeMs: { p50: number; max: number; count: number };
  budgetUse: number;
  fresh: Latencies;
  freshDuringRebuild: Latencies;
  newcomerFirstDayS: number | null;
  historyShares: { peopleReached: number; medianDays: number; maxDays: number };
  peakRssMb: Record<string, number | null>;
  redisMemoryMb: { before: number; after: number; peak: number };
}

export interface Latencies {
  count: number;
  /** Changes that had not arrived when the run ended. */
  missing: number;
  p50: number;
  p99: number;
  max: number;
}

/** A fresh change's time beyond the quiet period, from its acknowledgement to its arrival. */
export function latencies(posts: FreshPost[], arrived: Map<FreshPost, number>): Latencies {
  const beyondQuiet = posts
    .filter((post) => arrived.has(post))
    .map((post) => arrived.get(post)! - post.postedAt - BENCH_SYNC_QUIET_MS)
    .sort((a, b) => a - b);
  return {
    count: beyondQuiet.length,
    missing: posts.length - beyondQuiet.length,
    p50: percentile(beyondQuiet, 0.5),
    p99: percentile(beyondQuiet, 0.99),
    max: beyondQuiet.at(-1) ?? Number.NaN,
  };
}

/** How long after the rebuild a change falling due still counts as one it could have held up. */
const AFTER_REBUILD_MS = 1000;

/**
 * The changes that fell due (their quiet period over) from the failover until a second after the
 * queue was rebuilt: those a rebuild could hold up. A rebuild of a second would see few made
 * within it.
 */
export function dueAroundRebuild(posts: FreshPost[], rebuild: Rebuild | null, endedAt: number): FreshPost[] {
  if (rebuild === null) return [];
  const until = (rebuild.builtAt ?? endedAt) + AFTER_REBUILD_MS;
  return posts.filter((post) => post.postedAt + BENCH_SYNC_QUIET_MS >= rebuild.from && post.postedAt + BENCH_SYNC_QUIET_MS <= until);
}

export const rebuildSeconds = (rebuild: Rebuild | null) => (rebuild?.builtAt ? (rebuild.builtAt - rebuild.from) / 1000 : null);

/** Upserts the service received per second over the run from its first, as a share of the rate. */
export function budgetUse(live: LiveRecord, rate: number): number {
  const started = live.upserts.find((sample) => sample.count > 0);
  const last = live.upserts.at(-1);
  if (started === undefined || last === undefined || last.at === started.at) return Number.NaN;
  return (last.count - started.count) / (rate * ((last.at - started.at) / 1000));
}

/** Of the backlog people, how many got days sent during the run, and how many days each. */
export function historyShares(daysByAthlete: Map<string, number>): LaunchScaleFigures['historyShares'] {
  const counts = [...daysByAthlete.values()].sort((a, b) => a - b);
  return { peopleReached: counts.length, medianDays: percentile(counts, 0.5), maxDays: counts.at(-1) ?? 0 };
}

export function scrapeFigures(live: LiveRecord): LaunchScaleFigures['scrapeMs'] {
  const times = live.scrapes.map((scrape) => scrape.ms).sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), max: times.at(-1) ?? Number.NaN, count: times.length };
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const seconds = (value: number | null) => (value === null ? 'not within the run' : `${value.toFixed(1)} s`);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
const slowest = (times: StatementTime[]) => Math.max(...times.map((time) => time.ms));

export function launchScaleTable(figures: LaunchScaleFigures): string {
  const { statements } = figures;
  const lines = [
    `${figures.people} people x ${figures.days} days (${figures.people * figures.days} outbox entries), ${figures.workers} worker(s), ${figures.rate} requests/s`,
    `backlog written in: ${figures.backlogBuiltInS === null ? 'used as a previous run left it' : seconds(figures.backlogBuiltInS)}`,
    '',
    'Background statements (EXPLAIN ANALYZE, median of 3; at rest / with the workers running; first run at rest)',
    ...statements.atRest.map((time) => {
      const loaded = statements.underLoad.find((other) => other.name === time.name);
      return `  ${time.name}: ${time.ms.toFixed(1)} / ${loaded ? loaded.ms.toFixed(1) : '-'} ms (first ${time.firstMs.toFixed(1)} ms)`;
    }),
    statements.pgStatStatements === null
      ? '  pg_stat_statements: not loaded on this server (shared_preload_libraries)'
      : `  pg_stat_statements, slowest mean: ${statements.pgStatStatements
          .slice(0, 5)
          .map((stat) => `${stat.meanMs.toFixed(1)} ms x ${stat.calls}: ${stat.query.slice(0, 80)}`)
          .join('\n    ')}`,
    '',
    `queue built from the store at start: ${seconds(figures.firstBuildS)}`,
    `rebuild after the failover: ${seconds(figures.failoverRebuildS)}`,
    `metrics scrapes: p50 ${ms(figures.scrapeMs.p50)}, max ${ms(figures.scrapeMs.max)} (${figures.scrapeMs.count})`,
    `budget use: ${(figures.budgetUse * 100).toFixed(1)}% of ${figures.rate}/s`,
    `fresh beyond quiet: p50 ${ms(figures.fresh.p50)}, p99 ${ms(figures.fresh.p99)}, max ${ms(figures.fresh.max)} (${figures.fresh.count} changes, ${figures.fresh.missing} not arrived)`,
    `fresh beyond quiet, due during the rebuild or the second after: p99 ${ms(figures.freshDuringRebuild.p99)} (${figures.freshDuringRebuild.count} changes)`,
    `newcomer's first history day: ${seconds(figures.newcomerFirstDayS)} after their import`,
    `history shares: ${figures.historyShares.peopleReached} of ${figures.people} people got days; median ${figures.historyShares.medianDays}, max ${figures.historyShares.maxDays} days each`,
    `peak RSS: ${Object.entries(figures.peakRssMb)
      .map(([name, mb]) => `${name} ${mb === null ? '?' : mb.toFixed(0)} MB`)
      .join(', ')}`,
    `Redis memory (the whole server): ${figures.redisMemoryMb.before.toFixed(1)} MB before, ${figures.redisMemoryMb.after.toFixed(1)} MB after, peak ${figures.redisMemoryMb.peak.toFixed(1)} MB`,
  ];
  return [...lines, '', 'Targets', ...targets(figures)].join('\n');
}

function targets(figures: LaunchScaleFigures): string[] {
  const statementsMs = Math.max(slowest(figures.statements.atRest), slowest(figures.statements.underLoad));
  const appRss = Object.entries(figures.peakRssMb).filter(([name]) => name !== 'sandbox');
  const rssMax = Math.max(...appRss.map(([, mb]) => mb ?? Number.POSITIVE_INFINITY));
  const lines = [
    `${verdict(statementsMs < 50)} every background statement < 50 ms: slowest ${statementsMs.toFixed(1)} ms`,
    `${verdict(figures.scrapeMs.max < 1000 && figures.budgetUse >= 0.95)} a metrics scrape < 1 s with budget use >= 95%: ${ms(figures.scrapeMs.max)}, ${(figures.budgetUse * 100).toFixed(1)}%`,
    `${verdict(rssMax < 150)} web and worker peak RSS < 150 MB: ${rssMax.toFixed(0)} MB`,
  ];
  if (figures.failoverRebuildS !== null || figures.newcomerFirstDayS !== null || figures.fresh.count > 0) {
    const during = figures.freshDuringRebuild;
    const duringText = during.count === 0 ? 'no change fell due around it' : `${ms(during.p99)} against ${ms(figures.fresh.p99)}`;
    lines.push(
      `${verdict((figures.failoverRebuildS ?? Number.POSITIVE_INFINITY) <= 10 && !(during.p99 > figures.fresh.p99 + 1000))} the rebuild within 10 s, fresh p99 <= quiet + 1 s during it: ${seconds(figures.failoverRebuildS)}, ${duringText}`,
      `${verdict((figures.newcomerFirstDayS ?? Number.POSITIVE_INFINITY) <= 60)} a newcomer's first history day within 60 s: ${seconds(figures.newcomerFirstDayS)}`,
    );
  }
  return lines;
}
