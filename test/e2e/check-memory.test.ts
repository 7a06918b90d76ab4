import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_THREAD_RESOURCE_LIMITS, checkHeapMegabytes } from '../../src/activities/fit-file-checker.js';
import { postActivity } from '../helpers/activities.js';
import { fitFileOfDeveloperFields, fitFileOfHeartRates, fitFileOfRecords, fitFileOfSize, fitFileOfTexts } from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startWebAsNpmStart, type WebProcess } from '../helpers/web-process.js';

/**
 * The web process as `npm start` runs it, at its default settings, sent one at a time the .fit
 * files that cost a check the most memory that we could make. Each is answered 201 or 400, and
 * the process's peak resident memory (VmHWM, set back to the resident memory before each upload)
 * stays within what the README states: the upload's file three times (received, then handed to
 * the check's thread) and the thread (its V8 heap limit and about 20 MB of its own) above what the
 * process held before, and under 400 MB in all.
 */

const MB = 1024 * 1024;
const PEAK_MB = 400;
const THREAD_OWN_MB = 25;

let stack: Stack;
let web: WebProcess;
let client: CookieClient;

beforeAll(async () => {
  stack = await startStack();
  web = await startWebAsNpmStart(stack);
  client = new CookieClient(web.url);
  await signUpNewUser(client);
}, 60_000);
afterAll(async () => {
  await web.running.stop('SIGTERM');
  await stack.close();
});

/** A size in /proc/<pid>/status (VmRSS, VmHWM), in MB. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no ${field} for process ${pid}`);
  return (Number(line[1]) * 1024) / MB;
}

/** Sets the process's peak resident memory back to its resident memory now (proc(5), clear_refs). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const numbers = (count: number) => Array.from({ length: count }, (_, index) => index);

const WORST_FILES: Array<[string, () => Uint8Array, number, RegExp?]> = [
  ['15,800 heart-rate messages of 63 samples each, which a merge of heart rates expands 21-fold', () => fitFileOfHeartRates(), 201],
  ['13 million two-byte records', () => fitFileOfRecords(13_000_000, 1), 400, /too large to check: it holds more than 500,000 messages/],
  ['500,000 one-value records, as many messages as a check decodes', () => fitFileOfRecords(500_000, 1), 201],
  ['100,000 records of 20 values, as many values as a check decodes, in wide objects', () => fitFileOfRecords(100_000, 20), 201],
  ['500,000 texts of 49 characters, in 25.5 MB', () => fitFileOfTexts(500_000, 49), 201],
  [
    '800,000 messages of two one-byte developer fields, more than a thread can hold',
    () => fitFileOfDeveloperFields({ described: [0, 1], fields: [0, 1], bytesPerField: 1, count: 800_000 }),
    400,
    /too large to check: decoding it takes more than 112 MB/,
  ],
  [
    'messages of 255 developer fields of 255 values each, in 26 MB',
    () => fitFileOfDeveloperFields({ described: numbers(255), fields: numbers(255), bytesPerField: 255, count: 400 }),
    400,
    /too large to check: it holds more than 2,000,000 field values/,
  ],
  ['25 MiB of messages the decoder reads past', () => fitFileOfSize(25 * MB - 4096), 201],
];

describe('the web process checking the costliest .fit files', () => {
  it.each(WORST_FILES)(
    '%s: answered, with the peak within the stated bound',
    async (_name, make, status, refusal) => {
      const file = make();
      const pid = web.running.child.pid!;
      resetPeak(pid);
      const before = memoryOf(pid, 'VmRSS');
      const response = await postActivity(client, file, { fileName: 'worst.fit' });
      const body = (await response.json()) as { message?: string };
      const peak = memoryOf(pid, 'VmHWM');

      expect(response.status).toBe(status);
      if (refusal) expect(body.message).toMatch(refusal);
      const fileMb = file.byteLength / MB;
      expect(peak - before).toBeLessThan(checkHeapMegabytes(CHECK_THREAD_RESOURCE_LIMITS) + 3 * fileMb + THREAD_OWN_MB);
      expect(peak).toBeLessThan(PEAK_MB);
    },
    120_000,
  );
});
