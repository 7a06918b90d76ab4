import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { KindWorkload } from '../../../kinds/workload.js';
import { ioredisConnection, type RedisConnection } from '../../../redis/redis-target.js';
import { loseEveryKey } from '../../stack.js';
import { dateDaysAgo } from '../dates.js';
import { counters, writeNow, type FreshPost } from '../launch.js';
import { expectSuccess } from '../measure.js';
import type { BenchStack } from '../stack.js';
import { signUpAndConnect, type BenchUser } from '../users.js';
import { importsOf } from '../writes.js';

/**
 * The app at work on the backlog: the workers started on a Redis that holds nothing yet (so the
 * first of them builds the queue from the store), /metrics scraped every few seconds, and, in full mode,
 * people writing now, a newcomer importing their history a third of the way in, and at two thirds
 * a failover: every key of the app's Redis prefix deleted, as a Redis failed over to an empty
 * replica would lose them. What it records is summed up by report.ts.
 */

const POLL_MS = 100;
const COUNTERS_POLL_MS = 1000;
const NEWCOMER_POLL_MS = 250;
/** How long the fresh changes made at the end may take to arrive before the run gives up on them. */
const LAST_ARRIVALS_MS = 30_000;

export interface LivePlan {
  workers: number;
  minutes: number;
  scrapeS: number;
  days: number;
  full: boolean;
  /** How many people the run signed up before (the active ones): the newcomer's index comes after. */
  signedUp: number;
}

/** A rebuild of the queue from the store, as the Redis mark of a built queue shows it. */
export interface Rebuild {
  /** When the keys went (a failover), or the workers started. */
  from: number;
  /** When a process claimed the rebuild, and when the mark said the queue was built again. */
  claimedAt: number | null;
  builtAt: number | null;
}

export interface Scrape {
  process: number;
  at: number;
  ms: number;
  /** Whether it carried the outbox's waiting counts (a worker's scrape). */
  waitingCounts: boolean;
}

export interface LiveRecord {
  startedAt: number;
  endedAt: number;
  firstBuild: Rebuild;
  failover: Rebuild | null;
  scrapes: Scrape[];
  /** The service's upserts of the kind so far, every second. */
  upserts: Array<{ at: number; count: number }>;
  fresh: FreshPost[];
  newcomer: { athlete: string; importedAt: number; firstDayAt: number | null } | null;
  redisMemory: { before: RedisMemory; after: RedisMemory };
}

export interface RedisMemory {
  usedBytes: number;
  peakBytes: number;
}

export async function runLive(stack: BenchStack, workload: KindWorkload, active: BenchUser[], plan: LivePlan): Promise<LiveRecord> {
  const redis = ioredisConnection(stack.config.redis.target, { maxRetriesPerRequest: 1 });
  try {
    const redisBefore = await redisMemory(redis);
    const mark = `${stack.config.redis.prefix}:sync:queue-built`;
    const startedAt = Date.now();
    for (let index = 0; index < plan.workers; index++) stack.startWorker();
    const end = startedAt + plan.minutes * 60_000;
    const stopped = () => Date.now() >= end;

    const fresh: FreshPost[] = [];
    const writers = active.map((person) => writeNow(workload, person, fresh, stopped));
    const scrapes: Scrape[] = [];
    const upserts: LiveRecord['upserts'] = [];
    const alongside = Promise.all([
      ...writers,
      scrapeEvery(stack, plan, scrapes, stopped),
      countUpserts(stack, workload, upserts, stopped),
    ]);
    // Awaited at the end; a failure meanwhile must not end the process before the stack is stopped.
    alongside.catch(() => undefined);

    let failingOver = false;
    // Watched alongside: the newcomer and the failover come at their times whether or not it has ended.
    const firstBuild = watchRebuild(redis, mark, startedAt, () => failingOver || stopped());
    firstBuild.catch(() => undefined);
    let newcomer: LiveRecord['newcomer'] = null;
    let failover: Rebuild | null = null;
    if (plan.full) {
      await sleep(Math.max(0, startedAt + (end - startedAt) / 3 - Date.now()));
      newcomer = await newcomerImports(stack, workload, plan, end);
      await sleep(Math.max(0, startedAt + ((end - startedAt) * 2) / 3 - Date.now()));
      failingOver = true;
      const from = Date.now();
      await loseEveryKey(redis, stack.config.redis.prefix);
      failover = await watchRebuild(redis, mark, from, stopped);
    }
    await sleep(Math.max(0, end - Date.now()));
    await alongside;
    const endedAt = Date.now();
    return {
      startedAt,
      endedAt,
      firstBuild: await firstBuild,
      failover,
      scrapes,
      upserts,
      fresh,
      newcomer,
      redisMemory: { before: redisBefore, after: await redisMemory(redis) },
    };
  } finally {
    redis.disconnect();
  }
}

/** Watches the mark of a built queue: claimed (`rebuilding …`), then a date once built; gives up once `over`. */
async function watchRebuild(redis: RedisConnection, mark: string, from: number, over: () => boolean): Promise<Rebuild> {
  const rebuild: Rebuild = { from, claimedAt: null, builtAt: null };
  while (!over()) {
    const value = await redis.get(mark);
    if (value?.startsWith('rebuilding') && rebuild.claimedAt === null) rebuild.claimedAt = Date.now();
    if (value !== null && !value.startsWith('rebuilding')) {
      rebuild.builtAt = Date.now();
      return rebuild;
    }
    await sleep(POLL_MS);
  }
  return rebuild;
}

/** Scrapes every process's /metrics (the web's, then each worker's) every `scrapeS`, timing each. */
async function scrapeEvery(stack: BenchStack, plan: LivePlan, scrapes: Scrape[], stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    const due = Date.now() + plan.scrapeS * 1000;
    for (let process = 0; process <= plan.workers; process++) {
      const url = stack.metricsUrl(process);
      if (url === undefined) continue;
      const started = performance.now();
      const text = await fetch(url)
        .then((response) => response.text())
        .catch(() => undefined);
      // A worker still starting has no metrics server yet.
      if (text === undefined) continue;
      scrapes.push({ process, at: Date.now(), ms: performance.now() - started, waitingCounts: text.includes('outbox_entries_waiting{') });
    }
    while (!stopped() && Date.now() < due) await sleep(POLL_MS);
  }
}

/** The service's upserts of the kind (its 200s and 201s), every second. */
async function countUpserts(stack: BenchStack, workload: KindWorkload, upserts: LiveRecord['upserts'], stopped: () => boolean) {
  while (!stopped()) {
    const byStatus = (await counters(stack)).requests[`POST ${workload.servicePath}`] ?? {};
    upserts.push({ at: Date.now(), count: (byStatus['200'] ?? 0) + (byStatus['201'] ?? 0) });
    await sleep(COUNTERS_POLL_MS);
  }
}

/** Someone who connects now and imports their history: how long until its first day reaches the service. */
async function newcomerImports(stack: BenchStack, workload: KindWorkload, plan: LivePlan, end: number) {
  const [person] = await signUpAndConnect(stack, 1, 1, plan.signedUp);
  const bulk = workload.bulk!;
  const writes = Array.from({ length: plan.days }, (_, index) => ({ user: person!, date: dateDaysAgo(index + 1), n: 0 }));
  for (const { posts } of importsOf(writes, bulk.max)) expectSuccess(await bulk.send(person!.client, posts), bulk.route);
  const importedAt = Date.now();
  return { athlete: person!.athlete, importedAt, firstDayAt: await firstArrival(stack, workload, person!.athlete, end) };
}

/** When the athlete's first day reached the sandbox, polled until `end`; null if none did. */
async function firstArrival(stack: BenchStack, workload: KindWorkload, athlete: string, end: number): Promise<number | null> {
  while (Date.now() < end) {
    const days = await athleteDays(stack, workload, athlete);
    if (days.length > 0) return Math.min(...days.map((day) => day.createdAt));
    await sleep(NEWCOMER_POLL_MS);
  }
  return null;
}

/** One athlete's days of the kind at the sandbox, without reading everyone's. */
export async function athleteDays(stack: BenchStack, workload: KindWorkload, athlete: string) {
  const response = await fetch(`${stack.sandboxUrl}/_sandbox/athletes/${encodeURIComponent(athlete)}`);
  if (response.status === 404) return [];
  return workload.serviceDays({ athletes: { [athlete]: await response.json() } });
}

/** When each fresh change reached the sandbox (its day's creation there), waiting a little for the last ones. */
export async function freshArrivals(stack: BenchStack, workload: KindWorkload, fresh: FreshPost[]): Promise<Map<FreshPost, number>> {
  const deadline = Date.now() + LAST_ARRIVALS_MS;
  for (;;) {
    const arrived = new Map<FreshPost, number>();
    for (const athlete of new Set(fresh.map((post) => post.athlete))) {
      const days = new Map((await athleteDays(stack, workload, athlete)).map((day) => [day.date, day.createdAt]));
      for (const post of fresh.filter((candidate) => candidate.athlete === athlete)) {
        const at = days.get(post.date);
        if (at !== undefined) arrived.set(post, at);
      }
    }
    if (arrived.size === fresh.length || Date.now() > deadline) return arrived;
    await sleep(1000);
  }
}

const infoSchema = z.object({ used_memory: z.coerce.number(), used_memory_peak: z.coerce.number() });

/** INFO memory of the Redis server: the whole server's, which other runs on this machine share. */
async function redisMemory(redis: RedisConnection): Promise<RedisMemory> {
  const text = z.string().parse(await redis.info('memory'));
  const info = Object.fromEntries(
    text
      .split('\r\n')
      .filter((line) => line.includes(':'))
      .map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
  const parsed = infoSchema.parse(info);
  return { usedBytes: parsed.used_memory, peakBytes: parsed.used_memory_peak };
}
