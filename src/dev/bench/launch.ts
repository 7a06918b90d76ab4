import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { KindWorkload } from '../../kinds/workload.js';
import { countFlag, kindFlag, parseFlags, pathFlag, type FlagsResult } from '../flags.js';
import { writeRunResults } from '../run-results.js';
import { firstWorkloadThat, workloadCan, workloadNamed } from '../workloads.js';
import { dateDaysAgo } from './dates.js';
import { expectSuccess, percentile, runConcurrently } from './measure.js';
import { BENCH_SYNC_QUIET_MS, startBenchStack, type BenchStack } from './stack.js';
import { signIn, signUpAndConnect, type BenchUser } from './users.js';
import { importsOf } from './writes.js';

/**
 * `npm run bench -- --scenario launch`: a partner's launch. Many people connect, each bringing a
 * backlog of history (a bulk import), while others keep writing now, all at a set request rate, in
 * one kind whose workload can import. It measures
 * what the scheduling promises (docs/architecture.md, "Who waits"): fresh changes are not held up
 * by anyone's history, people with history share the rate, and the rate is used.
 */

const importsInBulk = (workload: KindWorkload) => workload.bulk !== undefined;

const flagsSchema = z.object({
  scenario: z.literal('launch'),
  /** The kind written; its workload must have a bulk import. */
  kind: kindFlag('--kind must name a kind with a bulk import, and no registered kind has one').refine(
    (name) => workloadCan(name, importsInBulk),
    {
      error: '--kind must name a kind with a bulk import',
    },
  ),
  users: countFlag('users'),
  days: countFlag('days').pipe(z.number().max(2000, { error: '--days must be at most 2000' })),
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

const DEFAULTS = {
  scenario: 'launch',
  // The first registered kind with a bulk import; none in an app without one.
  kind: firstWorkloadThat(importsInBulk),
  users: '200',
  days: '365',
  active: '20',
  rate: '250',
  workers: '1,2',
  results: 'bench/results',
};

export function parseLaunchFlags(args: string[]): FlagsResult<LaunchFlags> {
  return parseFlags(args, flagsSchema, DEFAULTS);
}

export const LAUNCH_USAGE =
  'npm run bench -- --scenario launch [--kind <name>] --users 200 --days 365 --active 20 --rate 250 --workers 1,2 [--results bench/results]';

/** How often each active person writes: every 2 to 4 s. */
const ACTIVE_PAUSE_MS = { least: 2000, most: 4000 };
/** Fairness is judged over 30 s windows, every 5 s, while every backlog still waits. */
const SHARE_WINDOW_MS = 30_000;
const SHARE_STEP_MS = 5000;
const COUNTERS_POLL_MS = 1000;
/**
 * The active people write to days of their own, so that each change is a record of its own at the
 * sandbox: days counted back from ten years ago, before any backlog, as a day after tomorrow is refused.
 */
const FRESH_DAYS_AGO = 3653;

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

export interface FreshPost {
  athlete: string;
  date: string;
  postedAt: number;
}

export async function runLaunch(flags: LaunchFlags, startedAt: Date): Promise<void> {
  const runs: LaunchResults[] = [];
  const workload = workloadNamed(flags.kind);
  for (const workers of flags.workers) {
    console.log(
      `bench launch, ${workload.name}: ${flags.users} people x ${flags.days} days of history, ${flags.active} logging now, ${flags.rate} requests/s, ${workers} worker(s)`,
    );
    const stack = await startBenchStack({ env: { ATHLETE_RATE_LIMIT_PER_S: String(flags.rate) } });
    try {
      runs.push(await launchOnce(stack, workload, flags, workers));
    } finally {
      await stack.stop();
    }
  }
  console.log(`\n${launchTable(runs)}\n`);
  console.log(`Results: ${await writeRunResults(flags.results, 'launch-', startedAt, { flags, runs })}`);
}

async function launchOnce(stack: BenchStack, workload: KindWorkload, flags: LaunchFlags, workers: number): Promise<LaunchResults> {
  const people = await signUpAndConnect(stack, flags.users + flags.active, 4);
  const [backlogs, active] = [people.slice(0, flags.users), people.slice(flags.users)];
  await importBacklogs(workload, backlogs, flags.days);
  const backlogDays = flags.users * flags.days;

  for (let index = 0; index < workers; index++) stack.startWorker();
  const fresh: FreshPost[] = [];
  let logging = true;
  const loggers = active.map((person) => writeNow(workload, person, fresh, () => !logging));
  await untilCreated(stack, workload, () => backlogDays);
  logging = false;
  await Promise.all(loggers);
  await untilCreated(stack, workload, () => backlogDays + fresh.length);
  return measureLaunch(await arrivals(stack, workload), backlogs, fresh, { workers, rate: flags.rate, backlogDays });
}

/** Every backlog person imports a write a day for `days` days before today, in as few imports as the kind allows. */
async function importBacklogs(workload: KindWorkload, people: BenchUser[], days: number): Promise<void> {
  // The flags take only a kind with a bulk import.
  const bulk = workload.bulk!;
  const posts = people.flatMap((user) => Array.from({ length: days }, (_, index) => ({ user, date: dateDaysAgo(index + 1), n: 0 })));
  await runConcurrently(importsOf(posts, bulk.max), 4, async ({ user, posts: writes }) => {
    expectSuccess(await bulk.send(user.client, writes), bulk.route);
  });
}

/**
 * A person writing every few seconds, each time to a day of their own, until `stopped`. A session
 * ended meanwhile (a failover loses the sessions with the rest of Redis) is signed in again, as a
 * person would.
 */
export async function writeNow(workload: KindWorkload, person: BenchUser, posts: FreshPost[], stopped: () => boolean): Promise<void> {
  for (let index = 0; !stopped(); index++) {
    await sleep(ACTIVE_PAUSE_MS.least + Math.random() * (ACTIVE_PAUSE_MS.most - ACTIVE_PAUSE_MS.least));
    if (stopped()) return;
    const date = dateDaysAgo(FRESH_DAYS_AGO + index);
    let response = await workload.write.send(person.client, date, 0);
    if (response.status === 401) {
      await response.body?.cancel();
      expectSuccess(await signIn(person.client, person.email), 'POST /api/login');
      response = await workload.write.send(person.client, date, 0);
    }
    expectSuccess(response, workload.write.route);
    posts.push({ athlete: person.athlete, date, postedAt: Date.now() });
  }
}

const countersSchema = z.object({ requests: z.record(z.string(), z.record(z.string(), z.number())) });

export async function counters(stack: BenchStack) {
  return countersSchema.parse(await (await fetch(`${stack.sandboxUrl}/_sandbox/counters`)).json());
}

/** Waits until the sandbox has created at least `expected()` records of the kind (its 201s). */
async function untilCreated(stack: BenchStack, workload: KindWorkload, expected: () => number): Promise<void> {
  for (;;) {
    const created = (await counters(stack)).requests[`POST ${workload.servicePath}`]?.['201'] ?? 0;
    if (created >= expected()) return;
    await sleep(COUNTERS_POLL_MS);
  }
}

/** When each day of each athlete first reached the sandbox. */
async function arrivals(stack: BenchStack, workload: KindWorkload): Promise<Map<string, Map<string, number>>> {
  const arrived = new Map<string, Map<string, number>>();
  for (const day of workload.serviceDays(await (await fetch(`${stack.sandboxUrl}/_sandbox/state`)).json())) {
    arrived.set(day.athlete, (arrived.get(day.athlete) ?? new Map<string, number>()).set(day.date, day.createdAt));
  }
  return arrived;
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
