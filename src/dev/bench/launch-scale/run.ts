import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { createDb } from '../../../db/database.js';
import type { KindWorkload } from '../../../kinds/workload.js';
import { freePort } from '../../free-port.js';
import { writeRunResults } from '../../run-results.js';
import { workloadNamed } from '../../workloads.js';
import { peakRssMb } from '../measure.js';
import { startBenchStack, type BenchStack } from '../stack.js';
import { signUpAndConnect } from '../users.js';
import { backlogAthlete, prepareBacklog } from './backlog.js';
import type { LaunchScaleFlags } from './flags.js';
import { connectBacklog } from './grants.js';
import { freshArrivals, runLive, type LiveRecord } from './live.js';
import {
  budgetUse,
  historyShares,
  latencies,
  launchScaleTable,
  dueAroundRebuild,
  rebuildSeconds,
  scrapeFigures,
  type LaunchScaleFigures,
} from './report.js';
import { resetStatementStats, statementStats, timeStatements } from './statements.js';

/**
 * `npm run bench -- --scenario launch-scale`: a partner's launch at its real size on Postgres. The
 * backlog is written straight into the store (backlog.ts), the backlog people connected at the
 * sandbox (grants.ts), then the web app, the workers and the sandbox run on it for a few minutes
 * (live.ts), and the figures are held to the launch's targets (report.ts); see docs/performance.md.
 */

const MB = 1024 * 1024;
const readText = (path: string) => readFile(path, 'utf8');

export async function runLaunchScale(flags: LaunchScaleFlags, startedAt: Date): Promise<void> {
  const progress = (line: string) => console.log(`bench launch-scale: ${line}`);
  const workload = workloadNamed(flags.kind);
  const db = createDb({ kind: 'postgres', url: flags.postgres, poolSize: 4 });
  try {
    progress(`${flags.people} people x ${flags.days} days of ${workload.name}, ${flags.mode}`);
    const backlog = await prepareBacklog(db, workload, { people: flags.people, days: flags.days, kind: workload.name }, progress);
    const middle = Math.ceil(flags.people / 2);
    progress('timing the background statements on the backlog');
    const atRest = await timeStatements(db, middle);
    await resetStatementStats(db);
    const stack = await startBenchStack({
      storage: { kind: 'prepared', databaseUrl: flags.postgres, redisPrefix: `athlete-sync-bench-${Date.now()}` },
      env: { ATHLETE_RATE_LIMIT_PER_S: String(flags.rate), METRICS_PORT: String(await freePort()) },
    });
    try {
      progress(`connecting the ${flags.people} backlog people at the sandbox`);
      await connectBacklog(db, stack.config, stack.sandboxUrl, flags.people);
      const full = flags.mode === 'full';
      const active = full ? await signUpAndConnect(stack, flags.active, 2) : [];
      progress(`running ${flags.minutes} min with ${flags.workers} worker(s)${full ? `, ${flags.active} people writing now` : ''}`);
      const live = await runLive(stack, workload, active, {
        workers: flags.workers,
        minutes: flags.minutes,
        scrapeS: flags.scrapeS,
        days: flags.days,
        full,
        signedUp: active.length,
      });
      progress('timing the background statements again, the workers still running');
      const underLoad = await timeStatements(db, middle);
      const statements = { atRest, underLoad, pgStatStatements: (await statementStats(db)) ?? null };
      const figures = await figuresOf(stack, workload, flags, live, statements, backlog.builtInS);
      console.log(`\n${launchScaleTable(figures)}\n`);
      console.log(
        `Results: ${await writeRunResults(flags.results, 'launch-scale-', startedAt, { flags: { ...flags, postgres: undefined }, figures })}`,
      );
    } finally {
      await stack.stop();
    }
  } finally {
    await db.destroy();
  }
}

async function figuresOf(
  stack: BenchStack,
  workload: KindWorkload,
  flags: LaunchScaleFlags,
  live: LiveRecord,
  statements: LaunchScaleFigures['statements'],
  backlogBuiltInS: number | null,
): Promise<LaunchScaleFigures> {
  const peakRss: Record<string, number | null> = { web: await peakRssMb(stack.web.pid, readText) };
  for (const [index, worker] of stack.workers.entries()) peakRss[`worker ${index + 1}`] = await peakRssMb(worker.pid, readText);
  peakRss.sandbox = await peakRssMb(stack.sandbox.pid, readText);
  const arrived = await freshArrivals(stack, workload, live.fresh);
  const duringRebuild = dueAroundRebuild(live.fresh, live.failover, live.endedAt);
  const { newcomer } = live;
  return {
    people: flags.people,
    days: flags.days,
    rate: flags.rate,
    workers: flags.workers,
    backlogBuiltInS,
    statements,
    firstBuildS: rebuildSeconds(live.firstBuild),
    failoverRebuildS: rebuildSeconds(live.failover),
    scrapeMs: scrapeFigures(live),
    budgetUse: budgetUse(live, flags.rate),
    fresh: latencies(
      live.fresh.filter((post) => !duringRebuild.includes(post)),
      arrived,
    ),
    freshDuringRebuild: latencies(duringRebuild, arrived),
    newcomerFirstDayS: newcomer?.firstDayAt ? (newcomer.firstDayAt - newcomer.importedAt) / 1000 : null,
    historyShares: historyShares(await backlogDaysSent(stack, workload, flags.people)),
    peakRssMb: peakRss,
    redisMemoryMb: {
      before: live.redisMemory.before.usedBytes / MB,
      after: live.redisMemory.after.usedBytes / MB,
      peak: live.redisMemory.after.peakBytes / MB,
    },
  };
}

const stateAthletesSchema = z.object({ athletes: z.record(z.string(), z.unknown()) });

/** How many days each backlog person has at the service, of those who have any. */
async function backlogDaysSent(stack: BenchStack, workload: KindWorkload, people: number): Promise<Map<string, number>> {
  const state = stateAthletesSchema.parse(await (await fetch(`${stack.sandboxUrl}/_sandbox/state`)).json());
  const backlogNames = new Set(Array.from({ length: people }, (_, index) => backlogAthlete(index + 1)));
  const days = new Map<string, number>();
  for (const day of workload.serviceDays({ athletes: state.athletes })) {
    if (backlogNames.has(day.athlete)) days.set(day.athlete, (days.get(day.athlete) ?? 0) + 1);
  }
  return days;
}
