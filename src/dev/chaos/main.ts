import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import type { KindWorkload } from '../../kinds/workload.js';
import { dateDaysAgo } from '../bench/dates.js';
import { changeSandboxSettings } from '../bench/sandbox-records.js';
import { LOAD_RUN_ENV } from '../bench/stack.js';
import { signUpAndConnect } from '../bench/users.js';
import { startPrivateRedis, type PrivateRedis } from '../find-redis.js';
import { freePort } from '../free-port.js';
import { workloadNamed } from '../workloads.js';
import { startDevStack, type DevStack } from '../stack.js';
import { CrashWatch, restartRedisEmpty, restartWorkers } from './disruptions.js';
import { CHAOS_USAGE, parseChaosFlags, type ChaosFlags } from './flags.js';
import { table, targets, writeResults, type ChaosResults, type PhaseResult } from './report.js';
import { readSandbox } from './sandbox-view.js';
import { waitToConverge } from './verdict.js';
import { runWorkload, type ChaosUser } from './workload.js';

/**
 * `npm run chaos`: the production build of the web app and N workers against a strict,
 * faulty sandbox, while workers are stopped and restarted and Redis is lost once; then whether every
 * acknowledged write reached the service. See docs/performance.md, "Chaos".
 */

/** The faults of the workload, per target and kind (src/sandbox/faults.ts). */
const CHAOS_FAULTS = { data: { '500': 0.1, '429': 0.05, drop: 0.03 }, token: { '500': 0.05 } };

async function main(): Promise<void> {
  const parsed = parseChaosFlags(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(`${parsed.problem}\n${CHAOS_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { flags } = parsed;
  const startedAt = new Date();
  // Its own Redis: chaos kills it.
  const redis = await startPrivateRedis();
  const watch = new CrashWatch();
  try {
    const stack = await startChaosStack(flags, redis.url);
    try {
      for (const [index, worker] of stack.workers.entries()) watch.watch(worker, `worker ${index + 1}`);
      watch.watch(stack.web, 'the web app');
      watch.watch(stack.sandbox, 'the sandbox');
      const results = await run(stack, redis, watch, flags);
      console.log(`\n${table(results)}\n`);
      console.log(`Results: ${await writeResults(results, startedAt, flags.results)}`);
      const missed = targets(results).filter((target) => !target.met);
      if (missed.length > 0) {
        console.error(`chaos: missed ${missed.map((target) => target.name).join(', ')}`);
        process.exitCode = 1;
      }
    } finally {
      watch.end();
      await stack.stop();
    }
  } finally {
    await redis.stop();
  }
}

async function startChaosStack(flags: ChaosFlags, redisUrl: string): Promise<DevStack> {
  return startDevStack({
    name: 'chaos',
    webPort: await freePort(),
    sandboxPort: await freePort(),
    redis: { REDIS_URL: redisUrl },
    storage: { kind: 'throwaway' },
    code: 'compiled',
    workers: flags.workers,
    env: {
      ...LOAD_RUN_ENV,
      LOG_LEVEL: 'error',
      // Bounds a refresh lease, which a SIGKILL leaves behind: (2 x 5 + 5) s before the next process settles it.
      ATHLETE_TIMEOUT_S: '5',
      SANDBOX_LOG_LEVEL: 'error',
      SANDBOX_ACCESS_TOKEN_TTL_S: '5',
      SANDBOX_ROTATE_REFRESH_TOKENS: 'true',
      SANDBOX_REUSE_DETECTION: 'true',
      SANDBOX_REUSE_GRACE_S: '0',
      SANDBOX_FAULT_SEED: String(flags.seed),
      SANDBOX_AUTO_APPROVE: 'chaos',
    },
  });
}

async function run(stack: DevStack, redis: PrivateRedis, watch: CrashWatch, flags: ChaosFlags): Promise<ChaosResults> {
  const progress = (step: string) => console.log(`chaos: ${step}`);
  const workload = workloadNamed(flags.kind);
  progress(`signing up and connecting ${flags.users} users, who write ${workload.name}`);
  const users: ChaosUser[] = (await signUpAndConnect(stack, flags.users, Math.min(flags.clients, 4))).map((user) => ({
    ...user,
    ledger: workload.chaosLedger(String(user.index)),
    signIns: 0,
  }));
  const dates = Array.from({ length: flags.days }, (_, index) => dateDaysAgo(index + 1));
  const random = xoroshiro128plus(flags.seed);
  await changeSandboxSettings(stack.sandboxUrl, { faultRates: CHAOS_FAULTS });

  const phases: PhaseResult[] = [];
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    progress(
      `${flags.seconds} s of writes, a worker stopped with ${signal} every ${flags.restartEvery} s${signal === 'SIGTERM' ? ', Redis killed once' : ''}`,
    );
    phases.push(await runPhase({ stack, redis, watch, flags, workload, users, dates, random, signal }));
  }

  progress('faults off; waiting for the sandbox to match the app');
  await changeSandboxSettings(stack.sandboxUrl, { faultRates: { data: {}, token: {} } });
  const { comparison, seconds } = await waitToConverge(workload, users, dates, stack.sandboxUrl, flags.convergeSeconds * 1000);
  const shown = new Map(comparison.notConnected.map((user) => [user.athlete, user.reason]));
  return {
    flags,
    phases,
    writes: {
      acknowledged: sum(users.map((user) => user.ledger.acknowledged)),
      unacknowledged: sum(users.map((user) => user.ledger.unacknowledged)),
      signInsAgain: users.reduce((total, user) => total + user.signIns, 0),
      lost: comparison.lost,
    },
    days: { compared: comparison.daysCompared, wrong: comparison.wrongDays, heldBack: comparison.daysHeldBack },
    reusesInAll: comparison.sandbox.reuseDetections,
    revokedGrants: comparison.sandbox.revokedGrants.map((grant) => ({
      athlete: grant.athlete,
      sandboxReason: grant.reason,
      appShows: shown.get(grant.athlete) ?? null,
    })),
    notConnected: comparison.notConnected,
    convergeSeconds: seconds,
    crashes: watch.crashes,
  };
}

interface Phase {
  stack: DevStack;
  redis: PrivateRedis;
  watch: CrashWatch;
  flags: ChaosFlags;
  workload: KindWorkload;
  users: ChaosUser[];
  dates: string[];
  random: RandomGenerator;
  signal: 'SIGTERM' | 'SIGKILL';
}

/** The workload for `seconds`, with a worker restarted every few seconds; in the SIGTERM phase, Redis is lost half-way. */
async function runPhase({ stack, redis, watch, flags, workload, users, dates, random, signal }: Phase): Promise<PhaseResult> {
  const before = await readSandbox(stack.sandboxUrl, workload);
  const until = Date.now() + flags.seconds * 1000;
  const withRedis = signal === 'SIGTERM';
  const [, stops] = await Promise.all([
    runWorkload(users, dates, flags.clients, until, random),
    restartWorkers(stack, watch, signal, flags.restartEvery * 1000, until),
    withRedis ? restartRedisEmpty(redis, (flags.seconds * 1000) / 2) : undefined,
  ]);
  const after = await readSandbox(stack.sandboxUrl, workload);
  return {
    signal,
    redisRestarts: withRedis ? 1 : 0,
    workerRestarts: stops.length,
    longestStopS: Math.max(0, ...stops),
    reuses: after.reuseDetections - before.reuseDetections,
    revokedGrants: after.revokedGrants.length - before.revokedGrants.length,
  };
}

function sum<Key extends string>(counts: Record<Key, number>[]): Record<Key, number> {
  const total = {} as Record<Key, number>;
  for (const count of counts) for (const key of Object.keys(count) as Key[]) total[key] = (total[key] ?? 0) + count[key];
  return total;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
