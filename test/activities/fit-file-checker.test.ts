import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createFitFileChecker } from '../../src/activities/fit-file-checker.js';
import { fitFile, fitFileWithBadCrc, truncatedFitFile } from '../helpers/fit-files.js';

/** The longest the event loop stood still, sampled every `everyMs`, while `work` ran. */
async function longestStall(work: Promise<unknown>, everyMs = 5): Promise<number> {
  let longest = 0;
  let last = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - everyMs);
    last = now;
  }, everyMs);
  await work;
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
    const started = performance.now();
    const stall = await longestStall(check(large));
    const took = performance.now() - started;
    // Decoding took a good part of a second or more; the loop never stood still for a tenth of it.
    expect(took).toBeGreaterThan(200);
    expect(stall).toBeLessThan(took / 10);
  });
});
