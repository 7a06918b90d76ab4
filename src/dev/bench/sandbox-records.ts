import { setTimeout as sleep } from 'node:timers/promises';
import type { KindWorkload, ServiceDay } from '../../kinds/workload.js';

/** Every day record of the workload's kind of the athletes whose name starts with `prefix`, from the sandbox's state. */
export async function serviceRecords(sandboxUrl: string, workload: KindWorkload, prefix: string): Promise<ServiceDay[]> {
  const response = await fetch(`${sandboxUrl}/_sandbox/state`);
  return workload.serviceDays(await response.json()).filter((day) => day.athlete.startsWith(prefix));
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
  workload: KindWorkload,
  prefix: string,
  done: (records: ServiceDay[]) => boolean,
  timeoutMs: number,
): Promise<ServiceDay[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = await serviceRecords(sandboxUrl, workload, prefix);
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
