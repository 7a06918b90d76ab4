import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateRedis } from '../find-redis.js';
import type { DevStack } from '../stack.js';

/** How long Redis stays down when it is killed. */
const REDIS_DOWN_MS = 2000;

/** Every process that exits without being told to: a crash, whatever its exit code. */
export class CrashWatch {
  readonly crashes: string[] = [];
  private readonly told = new Set<ChildProcess>();
  private ending = false;

  watch(child: ChildProcess, label: string): ChildProcess {
    child.once('exit', (code, signal) => {
      if (this.ending || this.told.has(child)) return;
      this.crashes.push(`${label} exited (${signal ?? `code ${code}`})`);
    });
    return child;
  }

  /** The next exit of `child` is ours. */
  expectExit(child: ChildProcess): void {
    this.told.add(child);
  }

  /** Everything is being stopped now. */
  end(): void {
    this.ending = true;
  }
}

/**
 * Until `until`, every `everyMs` the longest-running worker is stopped with `signal` and a new one
 * started in its place. Returns how long each stop took, in seconds.
 */
export async function restartWorkers(
  stack: DevStack,
  watch: CrashWatch,
  signal: NodeJS.Signals,
  everyMs: number,
  until: number,
): Promise<number[]> {
  const stops: number[] = [];
  while (Date.now() + everyMs < until) {
    await sleep(everyMs);
    const oldest = stack.workers[0];
    if (oldest === undefined) break;
    watch.expectExit(oldest);
    const stopping = Date.now();
    await stack.stopWorker(oldest, signal);
    stops.push((Date.now() - stopping) / 1000);
    watch.watch(stack.startWorker(), `a worker (restart ${stops.length})`);
  }
  return stops;
}

/** After `afterMs`, kills Redis (SIGKILL) and starts it again empty, REDIS_DOWN_MS later. */
export async function restartRedisEmpty(redis: PrivateRedis, afterMs: number): Promise<void> {
  await sleep(afterMs);
  await redis.kill();
  await sleep(REDIS_DOWN_MS);
  await redis.restart();
}
