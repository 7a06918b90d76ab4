import { performance } from 'node:perf_hooks';

export interface RateMeasurement {
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** The value below which `share` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * Runs every task from `concurrency` loops sharing one list, timing each; `units` counts what a task
 * moves (an item, a batch of items), so the rate is in units per second.
 */
export async function runConcurrently<T>(
  tasks: T[],
  concurrency: number,
  run: (task: T) => Promise<void>,
  units: (task: T) => number = () => 1,
): Promise<RateMeasurement> {
  const latencies: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const started = performance.now();
      await run(task);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, loop));
  const seconds = (performance.now() - started) / 1000;
  const count = tasks.reduce((sum, task) => sum + units(task), 0);
  latencies.sort((a, b) => a - b);
  return { count, seconds, perSecond: count / seconds, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

/** Peak resident set size (VmHWM) of a process in MB, from /proc; null where there is no /proc. */
export async function peakRssMb(pid: number | undefined, readFile: (path: string) => Promise<string>): Promise<number | null> {
  if (pid === undefined) return null;
  const status = await readFile(`/proc/${pid}/status`).catch(() => null);
  const kilobytes = status?.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) / 1024;
}

export function expectStatus(response: Response, expected: number, what: string): void {
  if (response.status !== expected) throw new Error(`${what}: expected ${expected}, got ${response.status}`);
}

export function expectSuccess(response: Response, what: string): void {
  if (!response.ok) throw new Error(`${what}: expected 2xx, got ${response.status}`);
}
