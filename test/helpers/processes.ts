import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Everything printed so far on stdout and stderr, in order. */
  output(): string;
  /** Resolves with the output once `pattern` appears in it. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How long a stop waits, after the process exited, for the rest of its output. */
const OUTPUT_AFTER_EXIT_MS = 2000;

/** Starts `command` (an npm script or a node entry point) the way a person would in a shell. */
export function start(command: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const listeners = new Set<() => void>();
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const listener of listeners) listener();
    });
  }
  const exited = once(child, 'exit').then(() => child.exitCode);
  // 'exit' can come before the last of the output is read: the pipes close after it, unless a
  // process the child started still holds them, which must not hold a stop.
  const outputRead = Promise.race([once(child, 'close'), new Promise((resolve) => setTimeout(resolve, OUTPUT_AFTER_EXIT_MS).unref())]);

  return {
    child,
    output: () => output,
    waitForOutput: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (!match) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        void exited.then(() => {
          if (!listeners.has(check)) return;
          cleanup();
          reject(new Error(`exited before printing ${pattern}; output:\n${output}`));
        });
        listeners.add(check);
        check();
      }),
    // Like Ctrl+C in a terminal: the signal goes to the whole process group (npm, tsx, node).
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, signal);
      const code = await exited;
      await outputRead;
      return code;
    },
  };
}

export interface RunOptions {
  /** Who it runs as, when not as the test (only a test running as root may pick another). */
  user?: { uid: number; gid: number };
  /** Killed (SIGTERM) after this long, when it should have ended by itself. */
  timeoutMs?: number;
  /** Where it runs: this process's own folder by default. */
  cwd?: string;
}

/** Runs a command to the end and returns what it printed. */
export async function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { user, timeoutMs, cwd }: RunOptions = {},
): Promise<Finished> {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], ...user, timeout: timeoutMs });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = once(child, 'close');
  const [code] = (await once(child, 'exit')) as [number | null];
  // As start's: the last of the output can be read after 'exit', on a busy machine.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, OUTPUT_AFTER_EXIT_MS).unref())]);
  return { code, stdout, stderr };
}

/**
 * Runs each step in order, every one even when an earlier one failed, then throws the first
 * failure: a teardown that stops processes, then the stack, then the servers they ran on.
 */
export async function eachInOrder(...steps: Array<() => Promise<unknown> | undefined>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) await Promise.resolve(step()).catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}
