import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_THREAD_RESOURCE_LIMITS, checkHeapMegabytes } from '../../../src/activities/fit-file-checker.js';
import { SESSION_COOKIE } from '../../../src/web/session.js';
import { postActivity, postActivityFrom } from '../../activities/helpers.js';
import {
  fitFileOfArrays,
  fitFileOfDeveloperFields,
  fitFileOfHeartRates,
  fitFileOfRecords,
  fitFileOfSize,
  fitFileOfTexts,
} from '../../helpers/fit-files.js';
import { signUpNewUser } from '../../helpers/flows.js';
import { holdUpload } from '../../activities/held-upload.js';
import { CookieClient } from '../../helpers/http-client.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { eventually } from '../../helpers/wait.js';
import { startWebAsNpmStart, type WebProcess } from '../../helpers/web-process.js';

/**
 * The web process as `npm start` runs it, at its default settings, sent one at a time the .fit
 * files that cost a check the most memory that we could make, then five hostile uploads at once.
 * Each file is answered 201 or 400, and the process's peak resident memory (VmHWM, set back to the
 * resident memory before each) stays within what the README states: the check's thread (its V8
 * heap limit and about 25 MB of its own) and its file, which the thread reads from the upload
 * folder, above what the process held before; the bodies being received, a few MB; under 400 MB
 * in all.
 */

const MB = 1024 * 1024;
/** The two addresses the held uploads come from, two from each. */
const HOLDING_ADDRESSES = ['127.0.4.1', '127.0.4.2'];
const PEAK_MB = 400;
const THREAD_OWN_MB = 25;
/** What the uploads being received hold in the process, whatever their size: their parsers' and sockets' buffers. */
const RECEIVING_MB = 16;

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

/** An IPv4 address as /proc/net/tcp writes it: its four bytes in hex, in the host's (little-endian) order. */
function procNetAddress(address: string): string {
  return address
    .split('.')
    .reverse()
    .map((byte) => Number(byte).toString(16).padStart(2, '0').toUpperCase())
    .join('');
}

/**
 * The bytes the kernel holds on TCP connections from or to these addresses (proc(5), /proc/net/tcp):
 * queued to send, or received and not yet read by the process.
 */
function bytesInFlight(addresses: string[]): number {
  const hex = new Set(addresses.map(procNetAddress));
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, remote]) => hex.has(local?.split(':')[0] ?? '') || hex.has(remote?.split(':')[0] ?? ''))
    .reduce((sum, fields) => sum + fields[4]!.split(':').reduce((both, queue) => both + parseInt(queue, 16), 0), 0);
}

const numbers = (count: number) => Array.from({ length: count }, (_, index) => index);

const WORST_FILES: Array<[string, () => Uint8Array, number, RegExp?]> = [
  ['15,800 heart-rate messages of 63 samples each, which a merge of heart rates expands 21-fold', () => fitFileOfHeartRates(), 201],
  ['13 million two-byte records', () => fitFileOfRecords(13_000_000, 1), 400, /too large to check: it holds more than 500,000 messages/],
  ['500,000 one-value records, as many messages as a check decodes', () => fitFileOfRecords(500_000, 1), 201],
  ['100,000 records of 20 values, as many values as a check decodes, in wide objects', () => fitFileOfRecords(100_000, 20), 201],
  ['500,000 texts of 49 characters, in 25.5 MB', () => fitFileOfTexts(500_000, 49), 201],
  [
    '99,000 messages of twenty one-element arrays, within the counts and more than a thread can hold',
    () => fitFileOfArrays(99_000),
    400,
    /too large to check: decoding it takes more than 144 MB/,
  ],
  [
    '800,000 messages of two one-byte developer fields',
    () => fitFileOfDeveloperFields({ described: [0, 1], fields: [0, 1], bytesPerField: 1, count: 800_000 }),
    400,
    // Refused at its 500,000th message, or at its deadline first when the machine is busy.
    /too large to check: |too complex to check: decoding it takes longer than/,
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
      // Building a large file holds this process's event loop for seconds: a kept-alive connection
      // the web closed meanwhile is seen closed before the upload, rather than written to.
      await sleep(100);
      const pid = web.running.child.pid!;
      resetPeak(pid);
      const before = memoryOf(pid, 'VmRSS');
      const response = await postActivity(client, file, { fileName: 'worst.fit' });
      const body = (await response.json()) as { message?: string };
      const peak = memoryOf(pid, 'VmHWM');

      expect(response.status).toBe(status);
      if (refusal) expect(body.message).toMatch(refusal);
      const fileMb = file.byteLength / MB;
      expect(peak - before).toBeLessThan(checkHeapMegabytes(CHECK_THREAD_RESOURCE_LIMITS) + THREAD_OWN_MB + fileMb + RECEIVING_MB);
      expect(peak).toBeLessThan(PEAK_MB);
    },
    120_000,
  );

  it('four uploads of 25 MiB held once sent and a costly file checked, at once from five accounts: the peak within the same bound', async () => {
    const pid = web.running.child.pid!;
    const senders = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => {
        const sender = new CookieClient(web.url);
        await signUpNewUser(sender);
        return sender;
      }),
    );
    const held = new Uint8Array(25 * MB);
    const checked = fitFileOfTexts(500_000, 49);
    resetPeak(pid);
    const before = memoryOf(pid, 'VmRSS');
    const holding = senders.slice(0, 4).map((sender, index) =>
      holdUpload(`${web.url}/api/activities`, {
        cookie: `${SESSION_COOKIE}=${sender.cookie(SESSION_COOKIE)}`,
        fields: { name: 'p'.repeat(16_000), metadata: 'p'.repeat(16_000) },
        file: held,
        heldAfter: held.length - 60,
        localAddress: HOLDING_ADDRESSES[Math.floor(index / 2)],
      }),
    );
    const answered = await postActivityFrom(senders[4]!, checked, '127.0.4.9');
    const uploads = await Promise.all(holding);
    await eventually('every byte of the held uploads read by the web', async () =>
      bytesInFlight(HOLDING_ADDRESSES) === 0 ? true : undefined,
    );
    const peak = memoryOf(pid, 'VmHWM');
    // Still held, unanswered, once the check was answered and all they sent received. Their cut
    // 10 s after they stopped has a test of its own (upload-slots.test.ts); here they leave, as
    // their clients may.
    const stillHeld = uploads.map((upload) => !upload.answeredEarly());
    for (const upload of uploads) upload.abandon();

    expect(answered.status).toBe(201);
    expect(stillHeld).toEqual([true, true, true, true]);
    const checkedMb = checked.byteLength / MB;
    expect(peak - before).toBeLessThan(checkHeapMegabytes(CHECK_THREAD_RESOURCE_LIMITS) + THREAD_OWN_MB + checkedMb + RECEIVING_MB);
    expect(peak).toBeLessThan(PEAK_MB);
  }, 120_000);
});
