import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/dev/free-port.js';
import { start, type Running } from './processes.js';
import type { Stack } from './stack.js';
import { appProcessEnvironment } from './worker-process.js';

const WEB_ENTRY_POINT = fileURLToPath(new URL('../../dist/src/server.js', import.meta.url));

export interface WebProcess {
  running: Running;
  url: string;
}

/**
 * Another web process of the stack's app, compiled and run by node as `npm start` runs it, on a
 * port of its own: the same database, Redis and settings (`env` changes some), as a second host behind a load balancer.
 */
export async function startWebEntryPoint(stack: Stack, env: Record<string, string> = {}): Promise<WebProcess> {
  const port = await freePort();
  const running = start(process.execPath, [WEB_ENTRY_POINT], appProcessEnvironment(stack, { ...env, PORT: String(port) }));
  await running.waitForOutput(/web listening/);
  return { running, url: `http://127.0.0.1:${port}` };
}
