import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { addDays } from '../../dates/local-today.js';
import { countFlag, parseFlags, pathFlag, type FlagsResult } from '../flags.js';
import { writeRunResults } from '../run-results.js';
import { expectStatus, percentile, runConcurrently } from './measure.js';
import { dateDaysAgo } from './meals-workload.js';
import { BENCH_SYNC_QUIET_MS, startBenchStack, type BenchStack } from './stack.js';
import { signUpAndConnect, type BenchUser } from './users.js';

/**
 * `npm run bench -- --scenario launch`: a partner's launch. Many people connect, each bringing a
 * backlog of history, while others keep logging meals now, all at a set request rate. It measures
 * what the scheduling promises (docs/architecture.md, "Who waits"): fresh changes are not held up
 * by anyone's history, people with history share the rate, and the rate is used.
 */

const flagsSchema = z.object({
  scenario: z.literal('launch'),
  users: countFlag('users'),
  days: countFlag('days').pipe(z.number().max(2000, { error: '--days must be at most 2000 (one import each)' })),
  active: countFlag('active'),
  rate: countFlag('rate'),
  /** Worker processes, one run per count: `1,2`. */
  workers: z
    .string()
    .regex(/^\d+(,\d+)*$/, { error: '--workers must be counts separated by commas, e.g. 1,2' })
    .transform((value) => value.split(',').map(Number))
    .pipe(z.array(z.number().min(1, { error: '--workers must count at least 1' }))),
  results: pathFlag('results'),
});

export type LaunchFlags = z.infer<typeof flagsSchema>;

const DEFAULTS = { scenario: 'launch', users: '200', days: '365', active: '20', rate: '250', workers: '1,2', results: 'bench/results' };

export function parseLaunchFlags(args: string[]): FlagsResult<LaunchFlags> {
  return parseFlags(args, flagsSchema, DEFAULTS);
}

export const LAUNCH_USAGE =
  'npm run bench -- --scenario launch --users 200 --days 365 --active 20 --rate 250 --workers 1,2 [--results bench/results]';

/** How often each active person logs a meal: every 2 to 4 s. */
const ACTIVE_PAUSE_MS = { least: 2000, most: 4000 };
/** Fairness is judged over 30 s windows, every 5 s, while every backlog still waits. */
const SHARE_WINDOW_MS = 30_000;
const SHARE_STEP_MS = 5000;
const COUNTERS_POLL_MS = 1000;
/** The active people log meals on days of their own, so that each change is a record of its own at the sandbox. */
const FRESH_DAYS_FROM = '2090-01-01';

export interface LaunchResults {
  workers: number;
  rate: number;
  backlogDays: number;
  freshChanges: number;
  /** How long a fresh change took beyond the quiet period, from its acknowledgement to its arrival. */
  freshBeyondQuietMs: { p50: number; p99: number; max: number };
  /** Per-person shares of the rate among those with history waiting, over 30 s windows: max/min. */
  historyShare: { worstWindow: number; medianWindow: number; windows: number };
  /** Requests the service got while every history waited (from the first day's arrival until the first history was all sent), as a share of the rate. */
  budgetUse: number;
  drainSeconds: number;
  /** The least the drain can take: everything sent divided by the rate. */
  floorSeconds: number;
}

interface FreshPost {
  athlete: string;
  date: string;
  postedAt: number;
}

export async function runLaunch(flags: LaunchFlags, startedAt: Date): Promise<void> {
  const runs: LaunchResults[] = [];
  for (const workers of flags.workers) {
    console.log(
      `bench launch: ${flags.users} people x ${flags.days} days of history, ${flags.active} logging now, ${flags.rate} requests/s, ${workers} worker(s)`,
    );
    const stack = await startBenchStack({ env: { ATHLETE_RATE_LIMIT_PER_S: String(flags.rate), MEALS_BATCH_MAX: '2000' } });
    try {
      runs.push(await launchOnce(stack, flags, workers));
    } finally {
      await stack.stop();
    }
  }
  console.log(`\n${launchTable(runs)}\n`);
  console.log(`Results: ${await writeRunResults(flags.results, 'launch-', startedAt, { flags, runs })}`);
}

async function launchOnce(stack: BenchStack, flags: LaunchFlags, workers: number): Promise<LaunchResults> {
  const people = await signUpAndConnect(stack, flags.users + flags.active, 4);
  const [backlogs, active] = [people.slice(0, flags.users), people.slice(flags.users)];
  await importBacklogs(backlogs, flags.days);
  const backlogDays = flags.users * flags.days;

  for (let index = 0; index < workers; index++) stack.startWorker();
  const fresh: FreshPost[] = [];
  let logging = true;
  const loggers = active.map((person) => logMealsNow(person, fresh, () => logging));
  await untilCreated(stack, () => backlogDays);
  logging = false;
  await Promise.all(loggers);
  await untilCreated(stack, () => backlogDays + fresh.length);
  return measureLaunch(await arrivals(stack), backlogs, fresh, { workers, rate: flags.rate, backlogDays });
}

/** Every backlog person imports a meal a day for `days` days before today, in one import each. */
async function importBacklogs(people: BenchUser[], days: number): Promise<void> {
  await runConcurrently(people, 4, async (person) => {
    const items = Array.from({ length: days }, (_, index) => ({
      name: 'History',
      carbs: 40,
      logged_at: `${dateDaysAgo(index + 1)}T12:00:00`,
    }));
    expectStatus(await person.client.postJson('/api/meals/batch', { items }), 201, 'POST /api/meals/batch');
  });
}

/** A person logging a meal every few seconds, each on a day of its own, until `goOn` says stop. */
async function logMealsNow(person: BenchUser, posts: FreshPost[], goOn: () => boolean): Promise<void> {
  for (let index = 0; goOn(); index++) {
    await sleep(ACTIVE_PAUSE_MS.least + Math.random() * (ACTIVE_PAUSE_MS.most - ACTIVE_PAUSE_MS.least));
    if (!goOn()) return;
    const date = addDays(FRESH_DAYS_FROM, index);
    const response = await person.client.postJson('/api/meals', { name: 'Lunch', carbs: 60, logged_at: `${date}T12:00:00` });
    expectStatus(response, 201, 'POST /api/meals');
    posts.push({ athlete: person.athlete, date, postedAt: Date.now() });
  }
}

const countersSchema = z.object({ requests: z.record(z.string(), z.record(z.string(), z.number())) });

async function counters(stack: BenchStack) {
  return countersSchema.parse(await (await fetch(`${stack.sandboxUrl}/_sandbox/counters`)).json());
}

/** Waits until the sandbox has created at least `expected()` nutrition records (its 201s). */
async function untilCreated(stack: BenchStack, expected: () => number): Promise<void> {
  for (;;) {
    const created = (await counters(stack)).requests['POST /api/nutrition']?.['201'] ?? 0;
    if (created >= expected()) return;
    await sleep(COUNTERS_POLL_MS);
  }
}

const stateSchema = z.object({
  athletes: z.record(z.string(), z.object({ nutrition: z.record(z.string(), z.object({ createdAt: z.iso.datetime() })) })),
});

/** When each day of each athlete first reached the sandbox. */
async function arrivals(stack: BenchStack): Promise<Map<string, Map<string, number>>> {
  const { athletes } = stateSchema.parse(await (await fetch(`${stack.sandboxUrl}/_sandbox/state`)).json());
  return new Map(
    Object.entries(athletes).map(([athlete, { nutrition }]) => [
      athlete,
      new Map(Object.entries(nutrition).map(([date, record]) => [date, Date.parse(record.createdAt)])),
    ]),
  );
}

export function measureLaunch(
  arrived: Map<string, Map<string, number>>,
  backlogs: Pick<BenchUser, 'athlete'>[],
  fresh: FreshPost[],
  run: { workers: number; rate: number; backlogDays: number },
): LaunchResults {
  const beyondQuiet = fresh
    .map((post) => arrived.get(post.athlete)!.get(post.date)! - post.postedAt - BENCH_SYNC_QUIET_MS)
    .sort((a, b) => a - b);
  const historyOf = backlogs.map((person) => [...arrived.get(person.athlete)!.values()].sort((a, b) => a - b));
  const start = Math.min(...historyOf.map((times) => times[0]!));
  const end = Math.max(...historyOf.map((times) => times.at(-1)!));
  // Every backlog was queued before the workers started; the first one finished ends the fair-share phase.
  const firstDone = Math.min(...historyOf.map((times) => times.at(-1)!));
  const ratios: number[] = [];
  for (let from = start; from + SHARE_WINDOW_MS <= firstDone; from += SHARE_STEP_MS) {
    const shares = historyOf.map((times) => times.filter((at) => at >= from && at < from + SHARE_WINDOW_MS).length);
    ratios.push(Math.max(...shares) / Math.min(...shares));
  }
  ratios.sort((a, b) => a - b);
  const drainSeconds = (end - start) / 1000;
  // Every day's first arrival is one request; later upserts of a day (none while changes are quiet) are not counted.
  const everyArrival = [...arrived.values()].flatMap((days) => [...days.values()]);
  const whileAllWait = everyArrival.filter((at) => at >= start && at <= firstDone).length;
  return {
    workers: run.workers,
    rate: run.rate,
    backlogDays: run.backlogDays,
    freshChanges: fresh.length,
    freshBeyondQuietMs: { p50: percentile(beyondQuiet, 0.5), p99: percentile(beyondQuiet, 0.99), max: beyondQuiet.at(-1) ?? Number.NaN },
    historyShare: { worstWindow: ratios.at(-1) ?? Number.NaN, medianWindow: percentile(ratios, 0.5), windows: ratios.length },
    budgetUse: whileAllWait / ((run.rate * (firstDone - start)) / 1000),
    drainSeconds,
    floorSeconds: (run.backlogDays + fresh.length) / run.rate,
  };
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);

export function launchTable(runs: LaunchResults[]): string {
  const rows = [
    [
      'workers',
      'fresh beyond quiet p50 / p99 / max',
      'history share max/min (worst, median 30 s window)',
      'budget use (all waiting)',
      'drain / floor',
    ],
    ...runs.map((run) => [
      String(run.workers),
      `${fixed(run.freshBeyondQuietMs.p50)} / ${fixed(run.freshBeyondQuietMs.p99)} / ${fixed(run.freshBeyondQuietMs.max)} ms (${run.freshChanges} changes)`,
      `${fixed(run.historyShare.worstWindow, 2)}, ${fixed(run.historyShare.medianWindow, 2)} (${run.historyShare.windows} windows)`,
      `${fixed(run.budgetUse * 100)}% of ${run.rate}/s`,
      `${fixed(run.drainSeconds)} s / ${fixed(run.floorSeconds)} s (${run.backlogDays} days of history)`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join(' | ')
      .trimEnd();
  const targets = runs.flatMap((run) => [
    `${run.freshBeyondQuietMs.p99 < 1000 ? 'PASS' : 'MISS'} ${run.workers} worker(s): fresh change p99 < 1 s beyond the quiet period: ${fixed(run.freshBeyondQuietMs.p99)} ms`,
    `${run.historyShare.worstWindow <= 1.5 ? 'PASS' : 'MISS'} ${run.workers} worker(s): history shares max/min <= 1.5 in every 30 s window: ${fixed(run.historyShare.worstWindow, 2)}`,
    `${run.budgetUse >= 0.9 ? 'PASS' : 'MISS'} ${run.workers} worker(s): budget use >= 90% while every history waits: ${fixed(run.budgetUse * 100)}%`,
  ]);
  return [line(rows[0]!), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.slice(1).map(line), '', 'Targets', ...targets].join(
    '\n',
  );
}
