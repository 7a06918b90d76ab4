import { z } from 'zod';
import { countFlag, kindFlag, parseFlags, pathFlag, wholeNumberFlag, type FlagsResult } from '../flags.js';
import { DEFAULT_WORKLOAD_KIND } from '../workloads.js';

const flagsSchema = z.object({
  /** The kind whose writes the workload makes. */
  kind: kindFlag(),
  users: countFlag('users'),
  /** Days back from yesterday that the workload writes to. */
  days: countFlag('days'),
  clients: countFlag('clients'),
  workers: countFlag('workers'),
  /** Seconds of workload in each of the two phases (workers stopped with SIGTERM, then with SIGKILL). */
  seconds: countFlag('seconds'),
  /** Seconds between worker restarts. */
  restartEvery: countFlag('restart-every'),
  /** How long the stack may take to converge once the faults stop. */
  convergeSeconds: countFlag('converge-seconds'),
  seed: wholeNumberFlag('seed'),
  /** Where the JSON of each run is written. */
  results: pathFlag('results'),
});

/** Writes of one kind by U users, D days, K clients (each user driven by one of them), N worker processes, two phases of S seconds. */
export type ChaosFlags = z.infer<typeof flagsSchema>;

/** Sized to finish in about two minutes on a 2-core machine. */
const DEFAULTS = {
  kind: DEFAULT_WORKLOAD_KIND,
  users: '8',
  days: '4',
  clients: '4',
  workers: '2',
  seconds: '30',
  'restart-every': '3',
  'converge-seconds': '120',
  seed: '1',
  results: 'bench/results',
};

export const CHAOS_USAGE =
  'Usage: npm run chaos -- [--kind <name>] --users 8 --days 4 --clients 4 --workers 2 --seconds 30 --restart-every 3 --converge-seconds 120 --seed 1 [--results bench/results]';

export function parseChaosFlags(args: string[]): FlagsResult<ChaosFlags> {
  return parseFlags(args, flagsSchema, DEFAULTS);
}
