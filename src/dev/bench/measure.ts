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

/** A timed run of tasks: the units they moved, in how long, and each task's latency in ms. */
export interface Timing {
  count: number;
  seconds: number;
  latencies: number[];
}

/**
 * Runs every task from `concurrency` loops sharing one list, timing each; `units` counts what a task
 * moves (an item, a batch of items).
 */
export async function timeConcurrently<T>(
  tasks: T[],
  concurrency: number,
  run: (task: T) => Promise<void>,
  units: (task: T) => number = () => 1,
): Promise<Timing> {
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
  return { count: tasks.reduce((sum, task) => sum + units(task), 0), seconds, latencies };
}

/** The rate in units per second over one or more timed runs, and their tasks' latencies. */
export function rateOf(timings: Timing[]): RateMeasurement {
  const count = timings.reduce((sum, timing) => sum + timing.count, 0);
  const seconds = timings.reduce((sum, timing) => sum + timing.seconds, 0);
  const latencies = timings.flatMap((timing) => timing.latencies).sort((a, b) => a - b);
  return { count, seconds, perSecond: count / seconds, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

/** timeConcurrently, as a rate. */
export async function runConcurrently<T>(...args: Parameters<typeof timeConcurrently<T>>): Promise<RateMeasurement> {
  return rateOf([await timeConcurrently(...args)]);
}

/** Peak resident set size (VmHWM) of a process in MB, from /proc; null where there is no /proc. */
export async function peakRssMb(pid: number | undefined, readFile: (path: string) => Promise<string>): Promise<number | null> {
  if (pid === undefined) return null;
  const status = await readFile(`/proc/${pid}/status`).catch(() => null);
  const kilobytes = status?.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) / 1024;
}

/** Linux reports CPU times in /proc in ticks of 1/100 s (USER_HZ), whatever the kernel's own tick. */
const MS_PER_PROC_TICK = 10;

/** CPU time (user and system) a process has used so far in ms, from /proc; null where there is no /proc. */
export async function cpuMs(pid: number | undefined, readFile: (path: string) => Promise<string>): Promise<number | null> {
  if (pid === undefined) return null;
  const stat = await readFile(`/proc/${pid}/stat`).catch(() => null);
  // The command name (the 2nd field) may hold spaces: fields are counted from its closing parenthesis.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [fields?.[11], fields?.[12]].map(Number);
  return utime === undefined || stime === undefined || Number.isNaN(utime + stime) ? null : (utime + stime) * MS_PER_PROC_TICK;
}

export function expectStatus(response: Response, expected: number, what: string): void {
  if (response.status !== expected) throw new Error(`${what}: expected ${expected}, got ${response.status}`);
}

export function expectSuccess(response: Response, what: string): void {
  if (!response.ok) throw new Error(`${what}: expected 2xx, got ${response.status}`);
}
