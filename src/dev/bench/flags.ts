import { z } from 'zod';
import { countFlag, parseFlags, pathFlag, type FlagsResult } from '../flags.js';

const flagsSchema = z.object({
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

/** U users, D days each, I items per (user, day), K concurrent clients, N worker processes. */
export type BenchFlags = z.infer<typeof flagsSchema>;

/** Sized to finish in about a minute on a 2-core machine with a drain long enough to be stable. */
const DEFAULTS = { users: '60', days: '10', items: '5', clients: '16', workers: '1', results: 'bench/results', profile: undefined };

export function parseBenchFlags(args: string[]): FlagsResult<BenchFlags> {
  return parseFlags(args, flagsSchema, DEFAULTS);
}
