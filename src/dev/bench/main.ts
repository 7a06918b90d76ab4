import { isDeepStrictEqual } from 'node:util';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { directAccessToken, upsertDirectly, type DirectUpsert } from './direct-client.js';
import { parseBenchFlags, type BenchFlags } from './flags.js';
import { LAUNCH_USAGE, parseLaunchFlags, runLaunch } from './launch.js';
import { LAUNCH_SCALE_USAGE, parseLaunchScaleFlags } from './launch-scale/flags.js';
import { runLaunchScale } from './launch-scale/run.js';
import { dateDaysAgo } from './dates.js';
import { cpuMs, peakRssMb, percentile, rateOf, type Timing } from './measure.js';
import { resultsStamp } from '../run-results.js';
import { table, writeResults, type BenchResults } from './report.js';
import { serviceRecords, waitForRecords } from './sandbox-records.js';
import { BENCH_SYNC_QUIET_MS, startBenchStack, type BenchStack } from './stack.js';
import { APP_ATHLETE_PREFIX, signInBurst, signUpAndConnect, type BenchUser } from './users.js';
import { dayPosts, healthzFloor, postImports, postWrites, type DayPost } from './writes.js';
import type { KindWorkload, ServiceDay } from '../../kinds/workload.js';
import { workloadNamed } from '../workloads.js';

/**
 * `npm run bench`: the production build of the web app and N workers against the sandbox,
 * U users connected through the real flow, measured phase by phase; see docs/performance.md.
 */
const SIGN_IN_BURST = 16;
/** In how many turns the floor and the single-item ingest are measured (floorAndIngest). */
const ALTERNATIONS = 5;
const DRAIN_TIMEOUT_MS = 300_000;
/** The bulk import posts this many times the days of the single-item ingest: a backlog the drain takes seconds over, long enough to be stable. */
const BATCH_DAYS_FACTOR = 4;
/** The ceiling sends the day records this many times over, to run longer than the drain it is compared with. */
const CEILING_ROUNDS = 3;
const DIRECT_ATHLETE_PREFIX = { naive: 'naive-user-', ceiling: 'ceiling-user-' };

const USAGE = `Usage: npm run bench -- [--kind <name>] --users 60 --days 10 --items 5 --clients 16 --workers 1 [--results bench/results] [--profile web|worker]
   or: ${LAUNCH_USAGE}
   or: ${LAUNCH_SCALE_USAGE}`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[args.indexOf('--scenario') + 1] === 'launch-scale') return launchScale(args);
  if (args.includes('--scenario')) return launch(args);
  const parsed = parseBenchFlags(args);
  if (!parsed.ok) {
    console.error(`${parsed.problem}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { flags } = parsed;
  const startedAt = new Date();
  const profiling = flags.profile
    ? { process: flags.profile, dir: resolve(flags.results, `${resultsStamp(startedAt)}-profiles`) }
    : undefined;
  const stack = await startBenchStack({ profiling });
  try {
    const results = { ...(await measure(stack, flags)), profiling: profiling ?? null };
    console.log(`\n${table(results)}\n`);
    const resultsPath = await writeResults(results, startedAt, flags.results);
    console.log(`Results: ${resultsPath}`);
    if (profiling) console.log(`The ${profiling.process}'s CPU profiles, once stopped: npx tsx src/dev/profile-summary.ts ${resultsPath}`);
  } finally {
    await stack.stop();
  }
}

async function launch(args: string[]): Promise<void> {
  const parsed = parseLaunchFlags(args);
  if (!parsed.ok) {
    console.error(`${parsed.problem}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  await runLaunch(parsed.flags, new Date());
}

async function launchScale(args: string[]): Promise<void> {
  const parsed = parseLaunchScaleFlags(args, process.env);
  if (!parsed.ok) {
    console.error(`${parsed.problem}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  await runLaunchScale(parsed.flags, new Date());
}

async function measure(stack: BenchStack, flags: BenchFlags): Promise<Omit<BenchResults, 'profiling'>> {
  const progress = (step: string) => console.log(`bench: ${step}`);
  const workload = workloadNamed(flags.kind);
  progress(`signing up and connecting ${flags.users} users, who write ${workload.name}`);
  const users = await signUpAndConnect(stack, flags.users, Math.min(flags.clients, 4));
  const webPeakBefore = await peakRssMb(stack.web.pid, readText);
  const burst = await signInBurst(stack, users, SIGN_IN_BURST);
  const signIns = { ...burst, webPeakRssMbBefore: webPeakBefore, webPeakRssMbAfter: await peakRssMb(stack.web.pid, readText) };

  const ingestDates = Array.from({ length: flags.days }, (_, index) => dateDaysAgo(index + 1));
  const batchDates = Array.from({ length: BATCH_DAYS_FACTOR * flags.days }, (_, index) => dateDaysAgo(flags.days + index + 1));
  const latencyDate = dateDaysAgo(ingestDates.length + batchDates.length + 1);
  const posts = dayPosts(users, ingestDates, flags.items);
  progress(`the /healthz floor and ${posts.length} writes (${workload.write.route}) one by one, in turns, with the workers stopped`);
  const { floor, ingest, ingestWindowsUs, webCpuMs } = await floorAndIngest(stack, workload, posts, flags.clients);
  const batch = await postImports(workload, dayPosts(users, batchDates, flags.items), flags.clients);

  progress(`the drain by ${flags.workers} worker(s)`);
  const expectedDays = users.length * (ingestDates.length + (batch.available ? batchDates.length : 0));
  await sleep(BENCH_SYNC_QUIET_MS + 500);
  for (let worker = 0; worker < flags.workers; worker++) stack.startWorker();
  // The workers' CPU from their first upsert on: their start-up is not the drain's.
  const started = await waitForRecords(stack.sandboxUrl, workload, APP_ATHLETE_PREFIX, (records) => records.length > 0, DRAIN_TIMEOUT_MS);
  const cpuAtStart = await workersCpuMs(stack);
  const drained = await waitForRecords(
    stack.sandboxUrl,
    workload,
    APP_ATHLETE_PREFIX,
    (records) => records.length >= expectedDays,
    DRAIN_TIMEOUT_MS,
  );
  const cpuAtEnd = await workersCpuMs(stack);
  const cpuSpent = cpuAtStart === null || cpuAtEnd === null ? null : cpuAtEnd - cpuAtStart;
  const daysAfterStart = drained.length - started.length;
  // A drain short enough to end before the first look leaves no day to divide by.
  const drain = { ...drainRate(drained), workerCpuMsPerDay: cpuSpent === null || daysAfterStart === 0 ? null : cpuSpent / daysAfterStart };

  progress('write -> synced latency, bursts with the workers running');
  const latency = await syncLatency(stack, workload, users, latencyDate, flags);
  const appRecords = await serviceRecords(stack.sandboxUrl, workload, APP_ATHLETE_PREFIX);

  progress('the naive integration and the ceiling, straight to the sandbox');
  const ingestRecords = appRecords.filter((record) => ingestDates.includes(record.date));
  const naive = await naiveIntegration(stack, workload, ingestRecords, flags);
  const ceiling = await ceilingRate(
    stack,
    workload,
    appRecords.filter((record) => record.date !== latencyDate),
    flags.clients,
  );

  const writes = appRecords.map((record) => record.writes);
  const peakRss: Record<string, number | null> = {
    web: await peakRssMb(stack.web.pid, readText),
    sandbox: await peakRssMb(stack.sandbox.pid, readText),
  };
  for (const [index, worker] of stack.workers.entries()) peakRss[`worker ${index + 1}`] = await peakRssMb(worker.pid, readText);

  return {
    flags,
    routes: { single: workload.write.route, bulk: workload.bulk?.route ?? null },
    syncQuietMs: BENCH_SYNC_QUIET_MS,
    floor,
    ingest,
    ingestWindowsUs,
    webCpuMs,
    batch: batch.available ? batch.rate : null,
    drain,
    ceiling,
    calls: { max: Math.max(...writes), mean: mean(writes), naiveMax: Math.max(...naive), naiveMean: mean(naive) },
    latency,
    signInBurst: signIns,
    peakRssMb: peakRss,
  };
}

const readText = (path: string) => readFile(path, 'utf8');

/** The CPU time of every worker process together, in ms; null without /proc. */
async function workersCpuMs(stack: BenchStack): Promise<number | null> {
  const each = await Promise.all(stack.workers.map((worker) => cpuMs(worker.pid, readText)));
  return each.includes(null) ? null : sum(each as number[]);
}
/** The monotonic clock V8's CPU profiles are timed by, in microseconds. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);
const between = (before: number | null, after: number | null) => (before === null || after === null ? null : after - before);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const mean = (values: number[]) => sum(values) / values.length;

/**
 * The floor and the single-item ingest in turns, ALTERNATIONS slices of each of the same size: the
 * rest of the machine's load changes from one second to the next, and measured one after the other
 * the two met different loads (floors of 289 to 1,982 req/s within minutes, on a shared machine).
 * Each gives its rate over its slices, and the web process's CPU time per request in them.
 */
async function floorAndIngest(stack: BenchStack, workload: KindWorkload, posts: DayPost[], clients: number) {
  const floor: Timing[] = [];
  const ingest: Timing[] = [];
  const ingestWindowsUs: BenchResults['ingestWindowsUs'] = [];
  const cpuSpent: { floor: (number | null)[]; ingest: (number | null)[] } = { floor: [], ingest: [] };
  const webCpu = () => cpuMs(stack.web.pid, readText);
  const sliceSize = Math.ceil(posts.length / ALTERNATIONS);
  for (let start = 0; start < posts.length; start += sliceSize) {
    const slice = posts.slice(start, start + sliceSize);
    const atStart = await webCpu();
    floor.push(await healthzFloor(stack.appUrl, slice.length, clients));
    const afterFloor = await webCpu();
    const fromUs = monotonicMicros();
    ingest.push(await postWrites(workload, slice, clients));
    ingestWindowsUs.push({ from: fromUs, to: monotonicMicros() });
    const afterIngest = await webCpu();
    cpuSpent.floor.push(between(atStart, afterFloor));
    cpuSpent.ingest.push(between(afterFloor, afterIngest));
  }
  const perRequest = (spent: (number | null)[]) =>
    spent.includes(null) ? null : spent.reduce((sum: number, ms) => sum + ms!, 0) / posts.length;
  return {
    floor: rateOf(floor),
    ingest: rateOf(ingest),
    ingestWindowsUs,
    webCpuMs: { floor: perRequest(cpuSpent.floor), ingest: perRequest(cpuSpent.ingest) },
  };
}

/** Days upserted per second at the sandbox, from its first upsert to its last. */
function drainRate(records: ServiceDay[]): Omit<BenchResults['drain'], 'workerCpuMsPerDay'> {
  const first = Math.min(...records.map((record) => record.createdAt));
  const last = Math.max(...records.map((record) => record.receivedAt));
  const seconds = Math.max(last - first, 1) / 1000;
  return { days: records.length, seconds, perSecond: records.length / seconds };
}

/**
 * Each user makes `items` writes to one more day at once; from the last of them acknowledged to the
 * sandbox's upsert of the whole day (what the app then holds), less the quiet period the app waits
 * on purpose.
 */
async function syncLatency(
  stack: BenchStack,
  workload: KindWorkload,
  users: BenchUser[],
  date: string,
  flags: BenchFlags,
): Promise<BenchResults['latency']> {
  const lastPosted = new Map<string, number>();
  const remember = (post: DayPost) => lastPosted.set(post.user.athlete, Date.now());
  await postWrites(workload, dayPosts(users, [date], flags.items), flags.clients, remember);
  const inApp = new Map<string, unknown>();
  for (const user of users) inApp.set(user.athlete, (await workload.appDays(user.client, [date])).get(date));
  const isComplete = (record: ServiceDay) => record.date === date && isDeepStrictEqual(record.content, inApp.get(record.athlete));
  const records = await waitForRecords(
    stack.sandboxUrl,
    workload,
    APP_ATHLETE_PREFIX,
    (all) => all.filter(isComplete).length === users.length,
    DRAIN_TIMEOUT_MS,
  );
  const beyondQuiet = records
    .filter(isComplete)
    .map((record) => record.receivedAt - lastPosted.get(record.athlete)! - BENCH_SYNC_QUIET_MS)
    .sort((a, b) => a - b);
  return { days: beyondQuiet.length, p50Ms: percentile(beyondQuiet, 0.5), p99Ms: percentile(beyondQuiet, 0.99) };
}

/** Tokens for one direct athlete per app athlete, named `prefix` + the app user's index, for the kind's scope. */
async function directTokens(
  stack: BenchStack,
  workload: KindWorkload,
  records: ServiceDay[],
  prefix: string,
): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const athlete of new Set(records.map((record) => record.athlete))) {
    tokens.set(athlete, await directAccessToken(stack, prefix + athlete.slice(APP_ATHLETE_PREFIX.length), workload.scope));
  }
  return tokens;
}

/** One upsert per write: each write's arrival sends its day as it then stands. Returns the upserts per (athlete, day). */
async function naiveIntegration(stack: BenchStack, workload: KindWorkload, records: ServiceDay[], flags: BenchFlags): Promise<number[]> {
  const tokens = await directTokens(stack, workload, records, DIRECT_ATHLETE_PREFIX.naive);
  const upserts: DirectUpsert[] = records.flatMap((day) =>
    workload.recordsWriteByWrite(day.record, flags.items).map((record) => ({ token: tokens.get(day.athlete)!, record })),
  );
  await upsertDirectly(stack.sandboxUrl, workload.servicePath, upserts, flags.clients);
  return (await serviceRecords(stack.sandboxUrl, workload, DIRECT_ATHLETE_PREFIX.naive)).map((record) => record.writes);
}

/** The app's own day records, sent again by a plain keep-alive client at the same concurrency. */
async function ceilingRate(stack: BenchStack, workload: KindWorkload, records: ServiceDay[], concurrency: number) {
  const tokens = await directTokens(stack, workload, records, DIRECT_ATHLETE_PREFIX.ceiling);
  const once = records.map((day) => ({ token: tokens.get(day.athlete)!, record: day.record }));
  return upsertDirectly(stack.sandboxUrl, workload.servicePath, Array.from({ length: CEILING_ROUNDS }, () => once).flat(), concurrency);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
