import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData, type ResourceLimits } from 'node:worker_threads';
import { z } from 'zod';

/** An upload's file as a check reads it: on disk, where the check's thread reads it itself. */
export interface FileToCheck {
  path: string;
  /** Its bytes, which set the check's deadline and which thread checks it. */
  size: number;
}

/**
 * Why the file is not one valid .fit file, or undefined: fitFileProblem, answered off the event
 * loop. A check whose `signal` aborts (its client left) is dropped if it waits, stopped if it runs,
 * and rejects with the signal's reason.
 */
export type FitFileCheck = (file: FileToCheck, signal?: AbortSignal) => Promise<string | undefined>;

/** What the thread is started with, so that this module knows it is that thread. */
const CHECK_THREAD = 'fit-file-check-thread';

/** What a thread says once it can check files: its start-up is not counted in a check's time. */
const READY = 'ready';

/** Files up to this size are checked in a thread of their own: a check of one takes a fraction of a second. */
export const SMALL_FIT_FILE_BYTES = 256 * 1024;

/**
 * The most of V8's memory a check's thread may hold: half again what the counts of fit-file.ts
 * let a check decode in the costliest layouts of what they count (85 MB), so that a file within
 * them is never refused by the memory the garbage collector happens to need, and only what they do
 * not foresee meets it. V8 then stops the thread, and the process goes on.
 */
export const CHECK_THREAD_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };

/** The megabytes of V8's heap a check's thread may take. */
export function checkHeapMegabytes({ maxOldGenerationSizeMb = 0, maxYoungGenerationSizeMb = 0 }: ResourceLimits): number {
  return maxOldGenerationSizeMb + maxYoungGenerationSizeMb;
}

/** Every check may take this long, whatever its size: a thread's reading of a small file on a busy machine. */
export const CHECK_BASE_MS = 2000;

const MIB = 1024 * 1024;

/**
 * How long a check of `bytes` may decode: CHECK_BASE_MS and `msPerMib` (ACTIVITY_CHECK_S_PER_MIB)
 * for each MiB. fit-file.ts refuses what would make the decoder's work outgrow the file's bytes,
 * so the slowest file we could build within its bounds takes about half a second per MiB on a
 * busy machine, and an activity's file a second at most (its messages are counted); the deadline
 * ends what a busier machine, or what was not foreseen, makes slower. A small file holds its
 * thread seconds at most, however it was built.
 */
export function checkDeadlineMs(bytes: number, msPerMib: number): number {
  return Math.round(CHECK_BASE_MS + (bytes / MIB) * msPerMib);
}

/**
 * What one check may take: `resourceLimits`, the memory of its thread; `msPerMib`, the time its
 * deadline gives each MiB (checkDeadlineMs). A file that meets either is refused, in words for the
 * person, and its thread stopped.
 */
interface CheckLimits {
  resourceLimits: ResourceLimits;
  msPerMib: number;
}

/**
 * Decoding a large .fit file takes up to seconds of CPU and up to the thread's memory limit, which on the main thread would hold up every other request of the
 * web process. So checks run in worker threads, one file at a time each (which also bounds the
 * memory they take): one thread for small files and one for the rest, so that a small file never
 * waits behind a large one. Each thread takes the waiting check that is due first (its arrival
 * plus its deadline), so a file waits behind larger files only as long as they have waited more
 * than their size's extra time, and never without end. The small files' thread is started at its
 * first check and kept; a large file's thread ends with its check, which gives back all it took
 * (a thread keeps the heap it grew). This module is also the threads' code (the end of the file).
 * A thread that dies otherwise fails its check (an error); the next check starts a new one.
 */
export function createFitFileChecker({
  msPerMib,
  resourceLimits = CHECK_THREAD_RESOURCE_LIMITS,
}: {
  msPerMib: number;
  resourceLimits?: ResourceLimits;
}): FitFileCheck {
  const limits = { resourceLimits, msPerMib };
  const small = oneThreadChecker(limits, { keep: true });
  const large = oneThreadChecker(limits, { keep: false });
  return (file, signal) => (file.size <= SMALL_FIT_FILE_BYTES ? small : large)(file, signal);
}

interface CheckThread {
  worker: Worker;
  /** Settles once the thread can check files, or has failed before it could. */
  ready: Promise<unknown>;
}

/** A check waiting for its thread: when it is due, and how to start it. */
interface Waiting {
  dueAt: number;
  start: () => void;
}

function oneThreadChecker(limits: CheckLimits, { keep }: { keep: boolean }): FitFileCheck {
  const waiting: Waiting[] = [];
  let busy = false;
  let thread: CheckThread | undefined;
  const running = (): CheckThread => {
    if (thread) return thread;
    const started = startThread(limits.resourceLimits);
    started.worker.once('exit', () => {
      if (thread === started) thread = undefined;
    });
    return (thread = started);
  };
  /** Ends the thread at once: the next check starts another. */
  const stop = (stopped: CheckThread) => {
    void stopped.worker.terminate();
    if (thread === stopped) thread = undefined;
  };
  const startNext = () => {
    if (busy) return;
    const next = waiting.shift();
    if (next === undefined) return;
    busy = true;
    next.start();
  };
  /** Runs `check` once the thread is free and no check due earlier waits. */
  const inTurn = <T>(dueAt: number, check: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        void check()
          .then(resolve, reject)
          .finally(() => {
            busy = false;
            startNext();
          });
      };
      const after = waiting.findIndex((other) => other.dueAt > dueAt);
      waiting.splice(after === -1 ? waiting.length : after, 0, { dueAt, start });
      startNext();
    });
  return (file, signal) => {
    const deadlineMs = checkDeadlineMs(file.size, limits.msPerMib);
    const checked = inTurn(Date.now() + deadlineMs, async () => {
      // Its client left while it waited: nothing to check for anyone.
      signal?.throwIfAborted();
      const asked = running();
      try {
        await asked.ready;
        return await ask(asked, file, { signal, deadlineMs, resourceLimits: limits.resourceLimits, stop });
      } finally {
        if (!keep) stop(asked);
      }
    });
    return untilAborted(checked, signal);
  };
}

/** What `work` settles with, or the signal's reason as soon as it aborts: a client that left waits for nothing. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  // Once abandoned, its own end (the signal's reason, when its turn comes) concerns nobody.
  work.catch(() => {});
  return new Promise((resolve, reject) => {
    const abandon = () => reject(signal.reason);
    if (signal.aborted) return abandon();
    signal.addEventListener('abort', abandon, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
  });
}

function startThread(resourceLimits: ResourceLimits): CheckThread {
  const self = import.meta.url;
  const options = { workerData: CHECK_THREAD, resourceLimits };
  const worker = fileURLToPath(self).endsWith('.ts')
    ? // Under tsx (the demo, the tests) this file is TypeScript: the thread registers tsx's loader first.
      new Worker(`import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(self)}))`, {
        ...options,
        eval: true,
      })
    : new Worker(new URL(self), options);
  // An idle checker never keeps the process from exiting.
  worker.unref();
  const ready = new Promise((resolve, reject) => {
    worker
      .once('message', resolve)
      .once('error', reject)
      .once('exit', (code) => reject(new Error(`the .fit check thread exited with code ${code} before it could check`)));
  });
  return { worker, ready };
}

interface Asking {
  signal: AbortSignal | undefined;
  deadlineMs: number;
  resourceLimits: ResourceLimits;
  stop: (thread: CheckThread) => void;
}

/** What the thread answers: the file's problem (null for none), or why it could not read the file. */
const answerSchema = z.union([z.object({ problem: z.string().nullable() }), z.object({ unreadable: z.string() })]);

function ask(thread: CheckThread, file: FileToCheck, { signal, deadlineMs, resourceLimits, stop }: Asking): Promise<string | undefined> {
  const { worker } = thread;
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      worker.off('message', answered).off('error', failed).off('exit', exited);
      signal?.removeEventListener('abort', abandoned);
      clearTimeout(deadline);
    };
    const answered = (message: unknown) => {
      stopListening();
      const answer = answerSchema.parse(message);
      if ('unreadable' in answer) reject(new Error(`the .fit check thread could not read ${file.path}: ${answer.unreadable}`));
      else resolve(answer.problem ?? undefined);
    };
    const failed = (error: unknown) => {
      stopListening();
      // The thread met its memory limit: V8 stopped it, and this file is the reason.
      if (isOutOfMemory(error)) resolve(tooLargeToCheck(resourceLimits));
      else reject(error);
    };
    const exited = (code: number) => failed(new Error(`the .fit check thread exited with code ${code} before answering`));
    // Its client left while it ran: the thread stops decoding.
    const abandoned = () => {
      failed(signal?.reason);
      stop(thread);
    };
    const deadline = setTimeout(() => {
      stopListening();
      stop(thread);
      resolve(tooSlowToCheck(deadlineMs));
    }, deadlineMs);
    worker.on('message', answered).on('error', failed).on('exit', exited);
    signal?.addEventListener('abort', abandoned, { once: true });
    worker.postMessage(file.path);
  });
}

function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

function tooLargeToCheck(resourceLimits: ResourceLimits): string {
  return `The file is too large to check: decoding it takes more than ${checkHeapMegabytes(resourceLimits)} MB, more than any activity`;
}

function tooSlowToCheck(deadlineMs: number): string {
  return `The file is too complex to check: decoding it takes longer than ${Number((deadlineMs / 1000).toFixed(1))} s, longer than any activity of its size`;
}

if (!isMainThread && workerData === CHECK_THREAD) {
  // Only here: the FIT SDK (about 10 MB resident once loaded) stays out of the processes' main threads.
  const { fitFileProblem } = await import('./fit-file.js');
  const port = parentPort!;
  port.on('message', (path: unknown) => {
    readFile(z.string().parse(path)).then(
      // A Buffer of its own (readFile's are): fitFileProblem reads it where it is.
      (bytes) => port.postMessage({ problem: fitFileProblem(bytes) ?? null }),
      (error: unknown) => port.postMessage({ unreadable: String(error) }),
    );
  });
  port.postMessage(READY);
}
