import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { start, type Running } from './helpers/processes.js';

const STUCK = fileURLToPath(new URL('./fixtures/stuck-shutdown.ts', import.meta.url));
const SHUTDOWN_TIMEOUT_MS = 1500;

let stuck: Running;
afterEach(async () => {
  await stuck.stop('SIGKILL');
});

async function startStuckProcess(timeoutMs: number): Promise<Running> {
  stuck = start(process.execPath, ['--import', 'tsx', STUCK], { ...process.env, SHUTDOWN_TIMEOUT_MS: String(timeoutMs) });
  await stuck.waitForOutput(/ready/);
  return stuck;
}

describe('a graceful stop that never finishes', () => {
  it('is given up after SHUTDOWN_TIMEOUT_MS: the process exits 1, naming what it waited for', async () => {
    await startStuckProcess(SHUTDOWN_TIMEOUT_MS);
    const startedAt = Date.now();
    expect(await stuck.stop('SIGTERM')).toBe(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS);
    expect(stuck.output()).toMatch(
      /shutdown took longer than SHUTDOWN_TIMEOUT_MS \(1500 ms\): gave up waiting for a step that never finishes/,
    );
  });

  it('is given up at once by a second signal, after the window in which npm relays the first', async () => {
    await startStuckProcess(600_000);
    const exited = stuck.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    process.kill(-stuck.child.pid!, 'SIGTERM');
    expect(await exited).toBe(1);
    expect(stuck.output()).toMatch(/second SIGTERM: gave up waiting for a step that never finishes/);
  });
});
