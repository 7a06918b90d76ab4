import { start, type Running } from './processes.js';
import type { Stack } from './stack.js';

/** `npm run worker` in its own process, configured like the stack's app, once it says it is ready. */
export async function startWorkerProcess(stack: Stack, env: Record<string, string> = {}): Promise<Running> {
  const worker = start('npm', ['run', '--silent', 'worker'], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TZ: process.env.TZ,
    ...stack.env,
    LOG_LEVEL: 'info',
    SYNC_SWEEP_INTERVAL_MS: '1000',
    WORKER_LOCK_DURATION_MS: '3000',
    ...env,
  });
  await worker.waitForOutput(/worker ready/);
  return worker;
}
