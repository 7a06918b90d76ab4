import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

const storedRecordSchema = z.object({ payload: z.unknown(), createdAt: z.iso.datetime(), receivedAt: z.iso.datetime(), writes: z.int() });
const stateSchema = z.object({
  athletes: z.record(z.string(), z.object({ nutrition: z.record(z.string(), storedRecordSchema) })),
});

/** One nutrition record the sandbox holds: an (athlete, day) with when it was first and last upserted. */
export interface DayRecord {
  athlete: string;
  date: string;
  payload: unknown;
  createdAt: number;
  receivedAt: number;
  writes: number;
}

/** Every nutrition record of the athletes whose name starts with `prefix`, from the sandbox's state. */
export async function nutritionRecords(sandboxUrl: string, prefix: string): Promise<DayRecord[]> {
  const response = await fetch(`${sandboxUrl}/_sandbox/state`);
  const state = stateSchema.parse(await response.json());
  return Object.entries(state.athletes)
    .filter(([athlete]) => athlete.startsWith(prefix))
    .flatMap(([athlete, { nutrition }]) =>
      Object.entries(nutrition).map(([date, record]) => ({
        athlete,
        date,
        payload: record.payload,
        createdAt: Date.parse(record.createdAt),
        receivedAt: Date.parse(record.receivedAt),
        writes: record.writes,
      })),
    );
}

/**
 * How often the sandbox's whole state is read while waiting. Rates and latencies come from the
 * sandbox's own timestamps, not from when a poll saw them; a read costs the sandbox a snapshot of
 * every record, CPU the drain it measures would otherwise get.
 */
const POLL_INTERVAL_MS = 500;

/** Polls until `done` holds for the records, or gives up after `timeoutMs`. */
export async function waitForRecords(
  sandboxUrl: string,
  prefix: string,
  done: (records: DayRecord[]) => boolean,
  timeoutMs: number,
): Promise<DayRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = await nutritionRecords(sandboxUrl, prefix);
    if (done(records)) return records;
    if (Date.now() > deadline) throw new Error(`the sandbox did not receive the expected days within ${timeoutMs / 1000} s`);
    await sleep(POLL_INTERVAL_MS);
  }
}

export function setAutoApprove(sandboxUrl: string, athlete: string): Promise<void> {
  return changeSandboxSettings(sandboxUrl, { autoApprove: athlete });
}

/** POST /_sandbox/settings: changes the running sandbox's settings (src/sandbox/settings.ts, settingsPatchSchema). */
export async function changeSandboxSettings(sandboxUrl: string, patch: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${sandboxUrl}/_sandbox/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  if (!response.ok) throw new Error(`POST /_sandbox/settings answered ${response.status}: ${await response.text()}`);
}
