import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runEvery } from '../../src/background/run-every.js';

describe('runEvery', () => {
  it('runs again sooner when a run asks for it, never later than the interval, and never two runs at once', async () => {
    const starts: number[] = [];
    let running = 0;
    let overlapped = false;
    const loop = runEvery(
      60_000,
      async () => {
        overlapped ||= running > 0;
        running++;
        starts.push(Date.now());
        await sleep(5);
        running--;
        return { runAgainInMs: 20 };
      },
      () => {},
    );
    while (starts.length < 4) await sleep(10);
    await loop.stop();
    // Asked to come back after 20 ms, not after the minute of its interval.
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(60_000);
    expect(overlapped).toBe(false);
  });

  it('waits the whole interval after a run that asks for nothing', async () => {
    let runs = 0;
    const loop = runEvery(
      60_000,
      async () => {
        runs++;
      },
      () => {},
    );
    await sleep(200);
    await loop.stop();
    expect(runs).toBe(1);
  });

  it('goes on after a run that fails, and stops after the run in progress', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const loop = runEvery(
      5,
      async () => {
        runs++;
        throw new Error('the database is away');
      },
      (error) => failures.push(error),
    );
    while (runs < 3) await sleep(5);
    await loop.stop();
    const stoppedAt = runs;
    await sleep(30);
    expect(runs).toBe(stoppedAt);
    expect(failures.length).toBe(runs);
  });
});
