import { fileURLToPath } from 'node:url';
import { start, type Running } from './processes.js';
import type { Stack } from './stack.js';

const WORKER_ENTRY_POINT = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));

/** `npm run worker` in its own process, configured like the stack's app, once it says it is ready. */
export async function startWorkerProcess(stack: Stack, env: Record<string, string> = {}): Promise<Running> {
  return ready(start('npm', ['run', '--silent', 'worker'], appProcessEnvironment(stack, env)));
}

/**
 * The compiled worker run by node itself, as `npm run worker` runs it but without npm in between
 * (npm exits at once on SIGTERM): a signal reaches only the worker, and the exit code is its own.
 */
export async function startWorkerEntryPoint(stack: Stack, env: Record<string, string> = {}): Promise<Running> {
  return ready(start(process.execPath, [WORKER_ENTRY_POINT], appProcessEnvironment(stack, env)));
}

/**
 * The environment of a process of the stack's app: the stack's own settings, logs at info, sweeps
 * every second; the job lock is the production default's.
 */
export function appProcessEnvironment(stack: Stack, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TZ: process.env.TZ,
    ...stack.env,
    LOG_LEVEL: 'info',
    SYNC_SWEEP_INTERVAL_MS: '1000',
    ...env,
  };
}

async function ready(worker: Running): Promise<Running> {
  await worker.waitForOutput(/worker ready/);
  return worker;
}
