import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData, type ResourceLimits } from 'node:worker_threads';
import pLimit from 'p-limit';
import { z } from 'zod';

/**
 * Why the bytes are not one valid .fit file, or undefined: fitFileProblem, answered off the event
 * loop. A check whose `signal` aborts (its client left) is dropped if it waits, stopped if it runs,
 * and rejects with the signal's reason.
 */
export type FitFileCheck = (bytes: Uint8Array, signal?: AbortSignal) => Promise<string | undefined>;

/** What the thread is started with, so that this module knows it is that thread. */
const CHECK_THREAD = 'fit-file-check-thread';

/** What a thread says once it can check files: its start-up is not counted in a check's time. */
const READY = 'ready';

/** Files up to this size are checked in a thread of their own: a check of one takes a fraction of a second. */
export const SMALL_FIT_FILE_BYTES = 256 * 1024;

/**
 * The most of V8's memory a check's thread may hold: above what the limits of fit-file.ts let a
 * check decode (under 100 MB), so that only a file they fail to foresee meets it. V8 then stops
 * the thread, and the process goes on.
 */
export const CHECK_THREAD_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };

/** The megabytes of V8's heap a check's thread may take. */
export function checkHeapMegabytes({ maxOldGenerationSizeMb = 0, maxYoungGenerationSizeMb = 0 }: ResourceLimits): number {
  return maxOldGenerationSizeMb + maxYoungGenerationSizeMb;
}

/**
 * What one check may take: `resourceLimits`, the memory of its thread; `timeoutMs`
 * (ACTIVITY_CHECK_TIMEOUT_S), how long it may decode, so that a file built to make the decoder
 * search without end (it looks each developer field up in a list the file can make as long as it
 * likes) cannot hold a thread for hours. A file that meets either is refused, in words for the
 * person, and its thread stopped.
 */
interface CheckLimits {
  resourceLimits: ResourceLimits;
  timeoutMs: number;
}

/**
 * Decoding a large .fit file takes seconds of CPU (about half a second per MiB here) and up to
 * 100 MB (the limits in fit-file.ts), which on the main thread would hold up every other
 * request of the web process. So checks run in worker threads, one file at a time each (the
 * others wait their turn, which also bounds the memory they take): one thread for small files and
 * one for the rest, so that a small file never waits behind a large one. The small files' thread
 * is started at its first check and kept; a large file's thread ends with its check, which gives
 * back all it took (a thread keeps the heap it grew). This module is also the threads' code (the
 * end of the file). A thread that dies otherwise fails its check (an error); the next check starts
 * a new one.
 */
export function createFitFileChecker({
  timeoutMs,
  resourceLimits = CHECK_THREAD_RESOURCE_LIMITS,
}: {
  timeoutMs: number;
  resourceLimits?: ResourceLimits;
}): FitFileCheck {
  const limits = { resourceLimits, timeoutMs };
  const small = oneThreadChecker(limits, { keep: true });
  const large = oneThreadChecker(limits, { keep: false });
  return (bytes, signal) => (bytes.length <= SMALL_FIT_FILE_BYTES ? small : large)(bytes, signal);
}

interface CheckThread {
  worker: Worker;
  /** Settles once the thread can check files, or has failed before it could. */
  ready: Promise<unknown>;
}

function oneThreadChecker(limits: CheckLimits, { keep }: { keep: boolean }): FitFileCheck {
  const oneAtATime = pLimit(1);
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
  return (bytes, signal) => {
    const checked = oneAtATime(async () => {
      const asked = running();
      try {
        await asked.ready;
        // Its client left while it waited: nothing to check for anyone.
        signal?.throwIfAborted();
        return await ask(asked, bytes, { signal, limits, stop });
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
  limits: CheckLimits;
  stop: (thread: CheckThread) => void;
}

function ask(thread: CheckThread, bytes: Uint8Array, { signal, limits, stop }: Asking): Promise<string | undefined> {
  const { worker } = thread;
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      worker.off('message', answered).off('error', failed).off('exit', exited);
      signal?.removeEventListener('abort', abandoned);
      clearTimeout(deadline);
    };
    const answered = (problem: string | null) => {
      stopListening();
      resolve(problem ?? undefined);
    };
    const failed = (error: unknown) => {
      stopListening();
      // The thread met its memory limit: V8 stopped it, and this file is the reason.
      if (isOutOfMemory(error)) resolve(tooLargeToCheck(limits.resourceLimits));
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
      resolve(tooSlowToCheck(limits.timeoutMs));
    }, limits.timeoutMs);
    worker.on('message', answered).on('error', failed).on('exit', exited);
    signal?.addEventListener('abort', abandoned, { once: true });
    worker.postMessage(bytes);
  });
}

function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

function tooLargeToCheck(resourceLimits: ResourceLimits): string {
  return `The file is too large to check: decoding it takes more than ${checkHeapMegabytes(resourceLimits)} MB, more than any activity`;
}

function tooSlowToCheck(timeoutMs: number): string {
  return `The file is too complex to check: decoding it takes longer than ${timeoutMs / 1000} s, longer than any activity`;
}

if (!isMainThread && workerData === CHECK_THREAD) {
  // Only here: the FIT SDK (about 10 MB resident once loaded) stays out of the processes' main threads.
  const { fitFileProblem } = await import('./fit-file.js');
  const port = parentPort!;
  port.on('message', (bytes: unknown) => port.postMessage(fitFileProblem(z.instanceof(Uint8Array).parse(bytes)) ?? null));
  port.postMessage(READY);
}
