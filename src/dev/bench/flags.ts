import { z } from 'zod';
import { countFlag, kindFlag, parseFlags, pathFlag, type FlagsResult } from '../flags.js';
import { DEFAULT_WORKLOAD_KIND } from '../workloads.js';

const flagsSchema = z.object({
  /** The kind whose writes are measured. */
  kind: kindFlag(),
  users: countFlag('users'),
  days: countFlag('days'),
  items: countFlag('items'),
  clients: countFlag('clients'),
  workers: countFlag('workers'),
  /** Where the JSON of each run is written. */
  results: pathFlag('results'),
  /** Which process(es) run under --cpu-prof; their profiles go to `<results>/<run>-profiles/`. */
  profile: z.enum(['web', 'worker'], { error: '--profile must be web or worker' }).optional(),
});

/** Writes of one kind by U users, D days each, I writes per (user, day), K concurrent clients, N worker processes. */
export type BenchFlags = z.infer<typeof flagsSchema>;

/** Sized to finish in about a minute on a 2-core machine with a drain long enough to be stable. */
const DEFAULTS = {
  kind: DEFAULT_WORKLOAD_KIND,
  users: '60',
  days: '10',
  items: '5',
  clients: '16',
  workers: '1',
  results: 'bench/results',
  profile: undefined,
};

export function parseBenchFlags(args: string[]): FlagsResult<BenchFlags> {
  return parseFlags(args, flagsSchema, DEFAULTS);
}
