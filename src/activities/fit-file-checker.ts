import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import pLimit from 'p-limit';
import { z } from 'zod';

/** Why the bytes are not one valid .fit file, or undefined: fitFileProblem, answered off the event loop. */
export type FitFileCheck = (bytes: Uint8Array) => Promise<string | undefined>;

/** What the thread is started with, so that this module knows it is that thread. */
const CHECK_THREAD = 'fit-file-check-thread';

/**
 * Decoding a large .fit file takes seconds of CPU (about half a second per MiB here) and hundreds
 * of MB, which on the main thread would hold up every other request of the web process. So the
 * checks run in one worker thread, started at the first check and kept, one file at a time (the
 * others wait their turn, which also bounds the memory they take). This module is also that
 * thread's code (the end of the file). A thread that dies fails its check; the next check starts
 * a new one.
 */
export function createFitFileChecker(): FitFileCheck {
  const oneAtATime = pLimit(1);
  let thread: Worker | undefined;
  const running = () => (thread ??= startThread().once('exit', () => (thread = undefined)));
  return (bytes) => oneAtATime(() => ask(running(), bytes));
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

function ask(thread: Worker, bytes: Uint8Array): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      thread.off('message', answered).off('error', failed).off('exit', exited);
    };
    const answered = (problem: string | null) => {
      stopListening();
      resolve(problem ?? undefined);
    };
    const failed = (error: Error) => {
      stopListening();
      reject(error);
    };
    const exited = (code: number) => failed(new Error(`the .fit check thread exited with code ${code} before answering`));
    thread.on('message', answered).on('error', failed).on('exit', exited);
    thread.postMessage(bytes);
  });
}

if (!isMainThread && workerData === CHECK_THREAD) {
  // Only here: the FIT SDK (about 10 MB resident once loaded) stays out of the processes' main threads.
  const { fitFileProblem } = await import('./fit-file.js');
  const port = parentPort!;
  port.on('message', (bytes: unknown) => port.postMessage(fitFileProblem(z.instanceof(Uint8Array).parse(bytes)) ?? null));
}
