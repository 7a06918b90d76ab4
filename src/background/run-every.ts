import { setTimeout as sleep } from 'node:timers/promises';

export interface Repeating {
  /** Stops the repeating; resolves once a run in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` at once, then `intervalMs` after each run ends: never two runs at once, whatever a run
 * takes. A run that fails is passed to `failed` and the next one comes as usual.
 */
export function runEvery(intervalMs: number, task: () => Promise<unknown>, failed: (error: unknown) => void): Repeating {
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await task().catch(failed);
      await sleep(intervalMs, undefined, { signal: stopping.signal }).catch(() => {});
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
