import { z } from 'zod';
import type { KindWorkload } from '../../kinds/workload.js';

const stateSchema = z.looseObject({
  grants: z.array(z.looseObject({ athlete: z.string(), status: z.enum(['active', 'revoked']), revokedReason: z.string().nullable() })),
  counters: z.looseObject({ reuseDetections: z.int() }),
});

/** What the sandbox holds that chaos compares: each athlete's days of the kind, the grants, the reuse counter. */
export interface SandboxView {
  /** By athlete, then date: what the day's record holds, in the form of the workload's appDays. */
  days: Map<string, Map<string, unknown>>;
  revokedGrants: { athlete: string; reason: string | null }[];
  reuseDetections: number;
}

export async function readSandbox(sandboxUrl: string, workload: KindWorkload): Promise<SandboxView> {
  const state: unknown = await (await fetch(`${sandboxUrl}/_sandbox/state`)).json();
  const { grants, counters } = stateSchema.parse(state);
  const days = new Map<string, Map<string, unknown>>();
  for (const day of workload.serviceDays(state)) {
    const held = days.get(day.athlete) ?? new Map<string, unknown>();
    days.set(day.athlete, held.set(day.date, day.content));
  }
  return {
    days,
    revokedGrants: grants
      .filter((grant) => grant.status === 'revoked')
      .map((grant) => ({ athlete: grant.athlete, reason: grant.revokedReason })),
    reuseDetections: counters.reuseDetections,
  };
}
