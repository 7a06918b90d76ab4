import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createFitFileChecker } from '../../src/activities/fit-file-checker.js';
import { fitFileProblem } from '../../src/activities/fit-file.js';
import { fitFile, fitFileWithBadCrc, truncatedFitFile } from '../helpers/fit-files.js';

/**
 * The longest the event loop stood still, sampled every `everyMs`, while `work` ran. Sampling starts
 * before the work and ends after it, so that a check that decoded on the loop itself would be seen.
 */
async function longestStall(work: () => Promise<unknown>, everyMs = 5): Promise<number> {
  let longest = 0;
  let last = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - everyMs);
    last = now;
  }, everyMs);
  await sleep(2 * everyMs);
  await work();
  await sleep(2 * everyMs);
  clearInterval(sampler);
  return longest;
}

describe('the .fit check off the event loop', () => {
  it('answers as fitFileProblem does, one file after another, with one thread', async () => {
    const check = createFitFileChecker();
    const answers = await Promise.all([check(fitFile(1)), check(fitFileWithBadCrc(1)), check(truncatedFitFile(1)), check(new Uint8Array())]);
    expect(answers[0]).toBeUndefined();
    expect(answers[1]).toMatch(/checksum \(CRC\) does not match/);
    expect(answers[2]).toMatch(/cut short/);
    expect(answers[3]).toBe('The file is empty');
  });

  it('keeps the event loop free while a large file is decoded', async () => {
    const check = createFitFileChecker();
    await check(fitFile(1)); // the thread's start-up is not what is measured
    const large = fitFile(1, 100_000);
    // How long the same decode holds the loop when it runs here: the reference, on this machine now.
    const started = performance.now();
    fitFileProblem(large);
    const onTheLoop = performance.now() - started;
    // A busy machine can pause this process at any moment, once; a decode on the loop stalls it every time.
    const stalls = [];
    for (let run = 0; run < 3; run += 1) stalls.push(await longestStall(() => check(large)));
    expect(Math.min(...stalls)).toBeLessThan(onTheLoop / 4);
  });
});
