import { z } from 'zod';
import type { Item } from './ledger.js';

const dayPayloadSchema = z.looseObject({
  items: z.array(z.looseObject({ name: z.string(), carbs: z.number() })),
  rawJson: z.looseObject({ items: z.array(z.looseObject({ id: z.int() })) }),
});

const stateSchema = z.object({
  athletes: z.record(z.string(), z.object({ nutrition: z.record(z.string(), z.object({ payload: dayPayloadSchema })) })),
  grants: z.array(z.looseObject({ athlete: z.string(), status: z.enum(['active', 'revoked']), revokedReason: z.string().nullable() })),
  counters: z.looseObject({ reuseDetections: z.int() }),
});

/** What the sandbox holds that chaos compares: each athlete's days, the grants, the reuse counter. */
export interface SandboxView {
  /** By athlete, then date: the items of the day's record, with the app's ids (rawJson). */
  days: Map<string, Map<string, Item[]>>;
  revokedGrants: { athlete: string; reason: string | null }[];
  reuseDetections: number;
}

export async function readSandbox(sandboxUrl: string): Promise<SandboxView> {
  const state = stateSchema.parse(await (await fetch(`${sandboxUrl}/_sandbox/state`)).json());
  const days = new Map(
    Object.entries(state.athletes).map(([athlete, { nutrition }]) => [
      athlete,
      new Map(Object.entries(nutrition).map(([date, { payload }]) => [date, itemsOf(date, payload)])),
    ]),
  );
  return {
    days,
    revokedGrants: state.grants
      .filter((grant) => grant.status === 'revoked')
      .map((grant) => ({ athlete: grant.athlete, reason: grant.revokedReason })),
    reuseDetections: state.counters.reuseDetections,
  };
}

/** The record's items joined with their ids, which the app sends in rawJson in the same order (nutrition/day-record.ts). */
function itemsOf(date: string, payload: z.infer<typeof dayPayloadSchema>): Item[] {
  return payload.items.map((item, index) => ({ id: payload.rawJson.items[index]?.id ?? -1, date, name: item.name, carbs: item.carbs }));
}

/** The same items, whatever their order. */
export function sameItems(app: Item[], sandbox: Item[]): boolean {
  const key = (items: Item[]) =>
    items
      .map((item) => `${item.id}|${item.name}|${item.carbs}`)
      .sort()
      .join('\n');
  return key(app) === key(sandbox);
}
