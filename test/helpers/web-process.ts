import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/dev/free-port.js';
import { PASSWORD } from './account.js';
import { start, type Running } from './processes.js';
import type { Stack } from './stack.js';
import { appProcessEnvironment } from './worker-process.js';

const WEB_ENTRY_POINT = fileURLToPath(new URL('../../dist/src/server.js', import.meta.url));
const RUN_SCRIPT = fileURLToPath(new URL('../../scripts/run.sh', import.meta.url));

export interface WebProcess {
  running: Running;
  url: string;
}

/**
 * Another web process of the stack's app, compiled and run by node as `npm start` runs it, on a
 * port of its own: the same database, Redis and settings (`env` changes some), as a second host behind a load balancer.
 */
export function startWebEntryPoint(stack: Stack, env: Record<string, string> = {}): Promise<WebProcess> {
  return startWeb(process.execPath, [WEB_ENTRY_POINT], stack, env);
}

/**
 * The same, started exactly as `npm start` starts it: through scripts/run.sh, with the memory
 * settings of production. The script execs Node, so the process's pid is Node's.
 */
export function startWebAsNpmStart(stack: Stack, env: Record<string, string> = {}): Promise<WebProcess> {
  return startWeb('sh', [RUN_SCRIPT, 'server'], stack, env);
}

async function startWeb(command: string, args: string[], stack: Stack, env: Record<string, string>): Promise<WebProcess> {
  const port = await freePort();
  const running = start(command, args, appProcessEnvironment(stack, { ...env, PORT: String(port) }));
  await running.waitForOutput(/web listening/);
  return { running, url: `http://127.0.0.1:${port}` };
}

/** Signs the account in on that web process alone: the session cookie (`name=value`) it answered with. */
export async function signInOn(web: WebProcess, email: string): Promise<string> {
  const response = await fetch(`${web.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`sign-in on ${web.url} answered ${response.status}`);
  return response.headers.getSetCookie()[0]!.split(';')[0]!;
}
