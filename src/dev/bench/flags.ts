import { parseArgs } from 'node:util';
import { z } from 'zod';

const count = (what: string) => z.coerce.number().int({ error: `--${what} must be a whole number` }).min(1, { error: `--${what} must be at least 1` });

const flagsSchema = z.object({
  users: count('users'),
  days: count('days'),
  items: count('items'),
  clients: count('clients'),
  workers: count('workers'),
  /** Where the JSON of each run is written. */
  results: z.string().min(1),
});

/** U users, D days each, I items per (user, day), K concurrent clients, N worker processes. */
export type BenchFlags = z.infer<typeof flagsSchema>;

/** Sized to finish in about a minute on a 2-core machine with a drain long enough to be stable. */
const DEFAULTS = { users: '60', days: '10', items: '5', clients: '16', workers: '1', results: 'bench/results' };

export function parseFlags(args: string[]): BenchFlags {
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(Object.entries(DEFAULTS).map(([name, value]) => [name, { type: 'string', default: value }])),
    strict: true,
  });
  return flagsSchema.parse(values);
}
