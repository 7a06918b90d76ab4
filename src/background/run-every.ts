import { setTimeout as sleep } from 'node:timers/promises';

export interface Repeating {
  /** Stops the repeating; resolves once a run in progress has ended. */
  stop(): Promise<void>;
}

/** What a run may answer to be run again sooner than the interval. */
export interface RunSooner {
  runAgainInMs: number;
}

/**
 * Runs `task` at once, then `intervalMs` after each run ends (sooner when the run answers with
 * RunSooner): never two runs at once, whatever a run takes. A run that fails is passed to `failed`
 * and the next one comes as usual.
 */
export function runEvery(intervalMs: number, task: () => Promise<RunSooner | void>, failed: (error: unknown) => void): Repeating {
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const answer = await task().catch(failed);
      const pause = answer ? Math.max(0, Math.min(answer.runAgainInMs, intervalMs)) : intervalMs;
      await sleep(pause, undefined, { signal: stopping.signal }).catch(() => {});
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
