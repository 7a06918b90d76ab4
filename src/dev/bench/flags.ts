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

export type FlagsResult = { ok: true; flags: BenchFlags } | { ok: false; problem: string };

export function parseFlags(args: string[]): FlagsResult {
  const options = Object.fromEntries(Object.entries(DEFAULTS).map(([name, value]) => [name, { type: 'string' as const, default: value }]));
  let values: unknown;
  try {
    values = parseArgs({ args, options, strict: true }).values;
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const flags = flagsSchema.safeParse(values);
  return flags.success ? { ok: true, flags: flags.data } : { ok: false, problem: flags.error.issues[0]?.message ?? 'unreadable flags' };
}
