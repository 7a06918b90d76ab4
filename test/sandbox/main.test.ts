import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

type SandboxProcess = ChildProcessByStdio<null, Readable, Readable>;

let child: SandboxProcess | undefined;
afterEach(() => {
  // Detached: the sandbox has its own process group, so tsx and the node it starts stop together.
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  child = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Runs main.ts with tsx, as `npm run sandbox` does; tsx passes signals on and exits with the sandbox's code. */
function startMain(environment: Record<string, string>): SandboxProcess {
  child = spawn('node_modules/.bin/tsx', ['src/sandbox/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, SANDBOX_LOG_LEVEL: 'silent', ...environment },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return child;
}

/** The first output line matching the pattern; fails if the process exits before printing one. */
function lineMatching(stream: Readable, pattern: RegExp, owner: SandboxProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((one) => pattern.test(one));
      if (line !== undefined) resolve(line);
    });
    owner.once('exit', (code) => reject(new Error(`exited with ${code} before printing ${pattern}: ${output}`)));
  });
}

describe('npm run sandbox (src/sandbox/main.ts)', () => {
  it('prints its address, answers /healthz and stops on SIGTERM', async () => {
    const port = await freePort();
    const sandbox = startMain({ SANDBOX_PORT: String(port) });
    const line = await lineMatching(sandbox.stdout, /listening on/, sandbox);
    expect(line).toBe(`Athlete Data Service sandbox listening on http://127.0.0.1:${port}`);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ ok: true });

    sandbox.kill('SIGTERM');
    const [code] = await once(sandbox, 'exit');
    expect(code).toBe(0);
  });

  it('stops with one line naming a bad variable', async () => {
    const sandbox = startMain({ SANDBOX_FAULT_RATE: 'often' });
    const problem = lineMatching(sandbox.stderr, /SANDBOX_FAULT_RATE/, sandbox);
    const [code] = await once(sandbox, 'exit');
    expect(code).toBe(1);
    expect(await problem).toBe('Invalid SANDBOX_FAULT_RATE: expected a number such as 0.25');
  });
});
