import { setTimeout as sleep } from 'node:timers/promises';

export interface Repeating {
  /** Stops the repeating; resolves once a run in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `task` at once, then `intervalMs` after each run ends (sooner when the run answers with a
 * number of ms until it wants to run again): never two runs at once, whatever a run takes. A run
 * that fails is passed to `failed` and the next one comes as usual.
 */
export function runEvery(intervalMs: number, task: () => Promise<unknown>, failed: (error: unknown) => void): Repeating {
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const wanted = await task().catch(failed);
      const pause = typeof wanted === 'number' ? Math.max(0, Math.min(wanted, intervalMs)) : intervalMs;
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
