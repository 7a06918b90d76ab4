import { KINDS } from '../kinds.js';
import type { KindWorkload } from '../kinds/workload.js';

/** The workloads of the registered kinds, in the order of the list of kinds: the bench, chaos and the tests take theirs from here. */
export const WORKLOADS: readonly KindWorkload[] = KINDS.flatMap((kind) => (kind.workload ? [kind.workload] : []));

/** The kind the tools drive unless told otherwise: the first with a workload. */
export const DEFAULT_WORKLOAD_KIND = WORKLOADS[0]?.name;

/** The first registered kind whose workload can do what a scenario needs; undefined when none can. */
export function firstWorkloadThat(can: (workload: KindWorkload) => boolean): string | undefined {
  return WORKLOADS.find(can)?.name;
}

/** Whether `name` is a registered kind whose workload can do what a scenario needs. */
export function workloadCan(name: string, can: (workload: KindWorkload) => boolean): boolean {
  const workload = WORKLOADS.find((candidate) => candidate.name === name);
  return workload !== undefined && can(workload);
}

/** The workload of the registered kind named `name`. */
export function workloadNamed(name: string): KindWorkload {
  const workload = WORKLOADS.find((candidate) => candidate.name === name);
  if (workload === undefined) throw new Error(`no registered kind named ${name} has a workload (${workloadNames()})`);
  return workload;
}

/** The kinds with a workload, for a message: their names separated by commas. */
export const workloadNames = (): string => WORKLOADS.map((workload) => workload.name).join(', ') || 'none';
