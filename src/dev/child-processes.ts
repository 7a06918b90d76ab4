import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { prettyFactory } from 'pino-pretty';
import { StartupError } from '../errors.js';

/**
 * The processes log JSON lines, as in production; here they are read by a person, so each is shown
 * as one line of text (an error's stack on the lines after it). Anything else is shown as it came.
 */
export const readableLog: (line: string) => string = prettyFactory({
  colorize: process.stdout.isTTY,
  singleLine: true,
  ignore: 'pid,hostname,name',
  translateTime: 'SYS:HH:MM:ss',
});

/**
 * Starts a TypeScript entry point of this project in its own Node process, its output prefixed and
 * its log lines readable. It runs the sources through tsx, not dist/: the demo shows the code as it
 * is now, with no build.
 */
export function startEntryPoint(label: string, file: string, env: NodeJS.ProcessEnv, nodeOptions: string[] = []): ChildProcess {
  return startNodeProcess(label, [...nodeOptions, '--import', 'tsx', fileURLToPath(new URL(`../${file}`, import.meta.url))], env);
}

/**
 * Starts a compiled entry point, `dist/src/<name>.js` (the production build), as `npm start` runs
 * it: through scripts/run.sh, with its memory settings, and `nodeOptions` of Node's own. The script
 * execs Node: the child's pid is the Node process's.
 */
export function startCompiledEntryPoint(
  label: string,
  name: 'server' | 'worker',
  env: NodeJS.ProcessEnv,
  nodeOptions: string[] = [],
): ChildProcess {
  return startProcess(label, 'sh', [fileURLToPath(new URL('../../scripts/run.sh', import.meta.url)), name, ...nodeOptions], env);
}

function startNodeProcess(label: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return startProcess(label, process.execPath, args, env);
}

function startProcess(label: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`[${label}] ${readableLog(line).trimEnd()}`));
  }
  return child;
}

/** How long one look at a process's health may take: a port held by something that never answers must not hold the wait. */
const HEALTH_LOOK_MS = 1000;

/**
 * Resolves once `url` answers 2xx; rejects if `child` exits first or time runs out, in one line a
 * person can act on (the child's own lines, shown above it, say why it stopped).
 */
export async function waitForHealthy(child: ChildProcess, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new StartupError(`The process of ${url} exited with code ${child.exitCode} while starting; its lines above say why.`);
    const healthy = await fetch(url, { signal: AbortSignal.timeout(HEALTH_LOOK_MS) }).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await sleep(200);
  }
  throw new StartupError(`${url} did not answer within ${timeoutMs / 1000} s.`);
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
