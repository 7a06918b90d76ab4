import { setTimeout as sleep } from 'node:timers/promises';

export interface Repeating {
  /** Ends the loop after the run in progress, if any; resolves once it has. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and again `intervalMs` after each run ends, until stopped: runs never overlap, and
 * a run that throws is reported and the loop goes on (Redis or the database may be back next time).
 */
export function repeat(task: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): Repeating {
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await task().catch(onError);
      await sleep(intervalMs, undefined, { signal: stopping.signal }).catch(() => {});
    }
  })();
  return {
    stop: () => {
      stopping.abort();
      return loop;
    },
  };
}
