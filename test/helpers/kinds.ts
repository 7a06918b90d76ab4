import { expect } from 'vitest';
import { DEFAULT_WORKLOAD_KIND, workloadNamed } from '../../src/dev/workloads.js';
import type { AppClient, DayWrite, KindWorkload, ServiceDay } from '../../src/kinds/workload.js';

/** A sandbox to read: a test stack's, or one of its own (the demo's). */
export interface SandboxReader {
  /** Its `/_sandbox/state` JSON. */
  sandboxState(): Promise<unknown>;
}

/**
 * The kind the infrastructure tests (Redis shapes, processes, scheduling, sync) drive: the first
 * registered kind with a workload, or the one TEST_KIND names, to run them through another.
 */
export function testWorkload(): KindWorkload {
  const name = process.env.TEST_KIND ?? DEFAULT_WORKLOAD_KIND;
  if (name === undefined) throw new Error('no registered kind has a workload for the infrastructure tests to drive');
  return workloadNamed(name);
}

export const workload = testWorkload();

/** Write `n` to the person's `date` through the kind's API, acknowledged (2xx). */
export async function writeDay(client: AppClient, date: string, n = 0): Promise<void> {
  const response = await workload.write.send(client, date, n);
  await response.arrayBuffer();
  expect(response.ok, `${workload.write.route} for ${date} answered ${response.status}`).toBe(true);
}

/** Many writes in one bulk import, acknowledged; only for a kind that has one (see `workload.bulk`). */
export async function importDays(client: AppClient, writes: readonly DayWrite[]): Promise<void> {
  const bulk = workload.bulk;
  if (bulk === undefined) throw new Error(`${workload.name} has no bulk import`);
  const response = await bulk.send(client, writes);
  await response.arrayBuffer();
  expect(response.ok, `${bulk.route} answered ${response.status}`).toBe(true);
}

/** What the app holds for the person on `date`, in the form the service's record is compared in; undefined: nothing. */
export async function appDay(client: AppClient, date: string): Promise<unknown> {
  return (await workload.appDays(client, [date])).get(date);
}

/** Every record of the kind the sandbox holds of `athlete` (all athletes when not given). */
export async function serviceDays(stack: SandboxReader, athlete?: string): Promise<ServiceDay[]> {
  const days = workload.serviceDays(await stack.sandboxState());
  return athlete === undefined ? days : days.filter((day) => day.athlete === athlete);
}

/** The sandbox's record of the athlete's `date`, if it has one. */
export async function serviceDay(stack: SandboxReader, athlete: string, date: string): Promise<ServiceDay | undefined> {
  return (await serviceDays(stack, athlete)).find((day) => day.date === date);
}
