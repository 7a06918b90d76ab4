import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
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

/** Files up to this size are checked in a thread of their own: a check of one takes a fraction of a second. */
export const SMALL_FIT_FILE_BYTES = 256 * 1024;

/**
 * Decoding a large .fit file takes seconds of CPU (about half a second per MiB here) and up to
 * about 110 MB (the limits in fit-file.ts), which on the main thread would hold up every other
 * request of the web process. So checks run in worker threads, started at their first check and
 * kept, one file at a time each (the others wait their turn, which also bounds the memory they
 * take): one thread for small files and one for the rest, so that a small file never waits behind
 * a large one. This module is also the threads' code (the end of the file). A thread that dies
 * fails its check; the next check starts a new one.
 */
export function createFitFileChecker(): FitFileCheck {
  const small = oneThreadChecker();
  const large = oneThreadChecker();
  return (bytes, signal) => (bytes.length <= SMALL_FIT_FILE_BYTES ? small : large)(bytes, signal);
}

function oneThreadChecker(): FitFileCheck {
  const oneAtATime = pLimit(1);
  let thread: Worker | undefined;
  const running = (): Worker => {
    if (thread) return thread;
    const started = startThread();
    started.once('exit', () => {
      if (thread === started) thread = undefined;
    });
    return (thread = started);
  };
  return (bytes, signal) => {
    const checked = oneAtATime(async () => {
      // Its client left while it waited: nothing to check for anyone.
      signal?.throwIfAborted();
      const asked = running();
      try {
        return await ask(asked, bytes, signal);
      } finally {
        // Stopped mid-check, it is exiting: the next check starts another at once.
        if (signal?.aborted && thread === asked) thread = undefined;
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

function startThread(): Worker {
  const self = import.meta.url;
  const thread = fileURLToPath(self).endsWith('.ts')
    ? // Under tsx (the demo, the tests) this file is TypeScript: the thread registers tsx's loader first.
      new Worker(`import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(self)}))`, {
        eval: true,
        workerData: CHECK_THREAD,
      })
    : new Worker(new URL(self), { workerData: CHECK_THREAD });
  // An idle checker never keeps the process from exiting.
  thread.unref();
  return thread;
}

function ask(thread: Worker, bytes: Uint8Array, signal: AbortSignal | undefined): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      thread.off('message', answered).off('error', failed).off('exit', exited);
      signal?.removeEventListener('abort', abandoned);
    };
    const answered = (problem: string | null) => {
      stopListening();
      resolve(problem ?? undefined);
    };
    const failed = (error: unknown) => {
      stopListening();
      reject(error);
    };
    const exited = (code: number) => failed(new Error(`the .fit check thread exited with code ${code} before answering`));
    // Its client left while it ran: the thread stops decoding (the next check starts another).
    const abandoned = () => {
      failed(signal?.reason);
      void thread.terminate();
    };
    thread.on('message', answered).on('error', failed).on('exit', exited);
    signal?.addEventListener('abort', abandoned, { once: true });
    thread.postMessage(bytes);
  });
}

if (!isMainThread && workerData === CHECK_THREAD) {
  // Only here: the FIT SDK (about 10 MB resident once loaded) stays out of the processes' main threads.
  const { fitFileProblem } = await import('./fit-file.js');
  const port = parentPort!;
  port.on('message', (bytes: unknown) => port.postMessage(fitFileProblem(z.instanceof(Uint8Array).parse(bytes)) ?? null));
}
