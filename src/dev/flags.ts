import { parseArgs } from 'node:util';
import { z } from 'zod';
import { WORKLOADS, workloadNames } from './workloads.js';

/** A `--name` flag holding a whole number, written out in digits (not `''`, `0x10` or `1e3`). */
export const wholeNumberFlag = (name: string) =>
  z
    .string()
    .regex(/^-?\d+$/, { error: `--${name} must be a whole number` })
    .transform(Number);

/** A `--name` flag holding a whole number from 1. */
export const countFlag = (name: string) => wholeNumberFlag(name).pipe(z.number().min(1, { error: `--${name} must be at least 1` }));

/** A `--name` flag holding a path. */
export const pathFlag = (name: string) => z.string().min(1, { error: `--${name} must name a folder` });

export type FlagsResult<Flags> = { ok: true; flags: Flags } | { ok: false; problem: string };

const camelCase = (flag: string) => flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The `--kebab-case value` flags of a dev command (`npm run bench`, `npm run chaos`), over `defaults`
 * (undefined: a flag with none), read by `schema` under their camelCase names; one line for the first problem.
 */
export function parseFlags<Schema extends z.ZodType>(
  args: string[],
  schema: Schema,
  defaults: Record<string, string | undefined>,
): FlagsResult<z.infer<Schema>> {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [
      name,
      value === undefined ? { type: 'string' as const } : { type: 'string' as const, default: value },
    ]),
  );
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args, options, strict: true }).values;
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const flags = schema.safeParse(Object.fromEntries(Object.entries(values).map(([name, value]) => [camelCase(name), value])));
  return flags.success ? { ok: true, flags: flags.data } : { ok: false, problem: flags.error.issues[0]?.message ?? 'unreadable flags' };
}

/**
 * `--kind`: a registered kind with a workload (src/dev/workloads.ts), by its name; `whenNone`: what
 * to say when it is not given and no kind can be the default (none has what the tool needs).
 */
export const kindFlag = (whenNone = '--kind must name a kind with a workload, and none has one') =>
  z.string({ error: whenNone }).refine((name) => WORKLOADS.some((workload) => workload.name === name), {
    error: `--kind must name a kind with a workload: ${workloadNames()}`,
  });
