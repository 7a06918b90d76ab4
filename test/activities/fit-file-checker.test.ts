import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CHECK_BASE_MS, SMALL_FIT_FILE_BYTES, checkDeadlineMs, createFitFileChecker } from '../../src/activities/fit-file-checker.js';
import { fitFileProblem } from '../../src/activities/fit-file.js';
import {
  fitFile,
  fitFileOfDeveloperFields,
  fitFileOfHeartRates,
  fitFileOfRecords,
  fitFileWithBadCrc,
  fitFileWithSlowLookups,
  truncatedFitFile,
} from '../helpers/fit-files.js';
import { eventually } from '../helpers/wait.js';
import { receivedFileOf } from './activity-files.js';

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

/** A deadline longer than any check of these tests takes, however loaded the machine. */
const NO_DEADLINE = { msPerMib: 10 * 60_000 };

/** The file as a check is given it: on disk. */
const onDisk = receivedFileOf;

describe('the .fit check off the event loop', () => {
  it('answers as fitFileProblem does, for files sent at once', async () => {
    const check = createFitFileChecker(NO_DEADLINE);
    const answers = await Promise.all([
      check(onDisk(fitFile(1))),
      check(onDisk(fitFileWithBadCrc(1))),
      check(onDisk(truncatedFitFile(1))),
      check(onDisk(new Uint8Array())),
    ]);
    expect(answers[0]).toBeUndefined();
    expect(answers[1]).toMatch(/checksum \(CRC\) does not match/);
    expect(answers[2]).toMatch(/cut short/);
    expect(answers[3]).toBe('The file is empty');
  });

  it('keeps the event loop free while a large file is decoded', async () => {
    const check = createFitFileChecker(NO_DEADLINE);
    await check(onDisk(fitFile(1))); // the thread's start-up is not what is measured
    // Built byte by byte: the SDK's encoder takes seconds over this many records, which the decode does not.
    const bytes = fitFileOfRecords(100_000, 3);
    const large = onDisk(bytes);
    // How long the same decode holds the loop when it runs here: the reference, on this machine now.
    const started = performance.now();
    fitFileProblem(bytes);
    const onTheLoop = performance.now() - started;
    // A busy machine can pause this process at any moment, once; a decode on the loop stalls it every time.
    const stalls = [];
    for (let run = 0; run < 3; run += 1) stalls.push(await longestStall(() => check(large)));
    expect(Math.min(...stalls)).toBeLessThan(onTheLoop / 4);
  }, 120_000); // Four decodes of a large file: seconds on a quiet machine, far more on a loaded one.
});

describe('the .fit check, fair to every client', () => {
  /** A file that takes the large files' thread a second or more: 400,000 one-value messages. */
  const slow = onDisk(fitFileOfRecords(400_000, 1));
  /** Just large enough for the large files' thread, and quick to check. */
  const quickLarge = onDisk(fitFileOfRecords(SMALL_FIT_FILE_BYTES / 2, 1));

  /** A checker whose two threads have started, so that their start-up is not what is compared. */
  async function warmChecker() {
    const check = createFitFileChecker(NO_DEADLINE);
    expect(quickLarge.size).toBeGreaterThan(SMALL_FIT_FILE_BYTES);
    await Promise.all([check(onDisk(fitFile(1))), check(quickLarge)]);
    return check;
  }

  /** Which of the two settles first, by name. */
  function first(racers: Record<string, Promise<unknown>>): Promise<string> {
    return Promise.race(
      Object.entries(racers).map(([name, racer]) =>
        racer.then(
          () => name,
          () => name,
        ),
      ),
    );
  }

  it('checks a small file while a large one is being checked, instead of after it', async () => {
    const check = await warmChecker();
    const large = check(slow);
    const small = check(onDisk(fitFile(2)));
    expect(await first({ large, small })).toBe('small');
    expect(await small).toBeUndefined();
    expect(await large).toBeUndefined();
  });

  it('drops a waiting check whose client left: it settles at once, with the reason, and the one before it goes on', async () => {
    const check = await warmChecker();
    const running = check(slow);
    const leaving = new AbortController();
    const waiting = check(slow, leaving.signal);
    leaving.abort(new Error('the client left'));
    expect(await first({ running, waiting })).toBe('waiting');
    await expect(waiting).rejects.toThrow('the client left');
    expect(await running).toBeUndefined();
  });

  it('stops a running check whose client left, and the next check is answered', async () => {
    const check = await warmChecker();
    const leaving = new AbortController();
    const stopped = check(slow, leaving.signal);
    const next = check(slow);
    leaving.abort(new Error('the client left'));
    await expect(stopped).rejects.toThrow('the client left');
    expect(await next).toBeUndefined();
    expect(await check(onDisk(fitFileWithBadCrc(1)))).toMatch(/checksum \(CRC\) does not match/);
  });

  it('checks a large file that is due sooner before larger ones that came a moment earlier, and those after it', async () => {
    const check = await warmChecker();
    const running = check(slow);
    const earlierLarger = check(onDisk(fitFileOfRecords(400_000, 2)));
    const smaller = check(quickLarge);
    expect(await first({ earlierLarger, smaller })).toBe('smaller');
    expect(await Promise.all([running, earlierLarger, smaller])).toEqual([undefined, undefined, undefined]);
  });
});

/** The threads of this process, as Linux counts them. */
function threadsNow(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
}

describe('the .fit check, within its limits', () => {
  it("ends a large file's thread with its check, giving back what it took, and keeps the small files' thread", async () => {
    const check = createFitFileChecker(NO_DEADLINE);
    await check(onDisk(fitFile(1)));
    const withTheSmallFilesThread = threadsNow();
    expect(await check(onDisk(fitFileOfRecords(SMALL_FIT_FILE_BYTES, 1)))).toBeUndefined();
    await eventually('the large file’s thread ended', async () => (threadsNow() === withTheSmallFilesThread ? true : undefined));
    expect(await check(onDisk(fitFile(2)))).toBeUndefined();
    expect(threadsNow()).toBe(withTheSmallFilesThread);
  }, 60_000);

  it("refuses a file whose decoding meets its thread's memory limit as too large to check, and answers the next check", async () => {
    const check = createFitFileChecker({
      ...NO_DEADLINE,
      resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 },
    });
    // Within the counts of fit-file.ts, and more than 100 MB once decoded: a small object of developer fields per message.
    const wide = fitFileOfDeveloperFields({ described: [0, 1], fields: [0, 1], bytesPerField: 1, count: 450_000 });
    expect(fitFileProblem(wide)).toBeUndefined();
    expect(await check(onDisk(wide))).toBe('The file is too large to check: decoding it takes more than 56 MB, more than any activity');
    expect(await check(onDisk(fitFile(1)))).toBeUndefined();
    expect(await check(onDisk(fitFileOfRecords(SMALL_FIT_FILE_BYTES / 2, 1)))).toBeUndefined();
  }, 120_000);

  it('answers the heart-rate file that a merge of its samples would take to gigabytes, in a thread of at most 144 MB', async () => {
    expect(await createFitFileChecker(NO_DEADLINE)(onDisk(fitFileOfHeartRates()))).toBeUndefined();
  }, 60_000);

  it("gives a check 2 s, and its file's share of the time per MiB", () => {
    expect(CHECK_BASE_MS).toBe(2000);
    expect(checkDeadlineMs(0, 2000)).toBe(2000);
    expect(checkDeadlineMs(60 * 1024, 2000)).toBe(2117);
    expect(checkDeadlineMs(25 * 1024 * 1024, 2000)).toBe(52_000);
  });

  it('refuses a file whose decoding takes longer than its deadline as too complex to check, and answers the next check', async () => {
    // Its base alone: 2 s, which this file takes several times over.
    const check = createFitFileChecker({ msPerMib: 0 });
    expect(await check(onDisk(fitFileWithSlowLookups(12 * 1024 * 1024)))).toBe(
      'The file is too complex to check: decoding it takes longer than 2 s, longer than any activity of its size',
    );
    expect(await check(onDisk(fitFile(1)))).toBeUndefined();
  }, 60_000);
});
