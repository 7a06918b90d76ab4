import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';

const run = promisify(execFile);

export interface DevCommandRun {
  stdout: string;
  /** The one JSON document the run wrote to its results folder. */
  results: Record<string, any>;
}

/**
 * Runs a dev command's entry point (`src/dev/bench/main.ts`, `src/dev/chaos/main.ts`) from source
 * with these flags and a results folder of its own, deleted after the test file.
 */
export function devCommandRunner(): (entryPoint: string, flags: string[], options: { timeoutMs: number; env?: NodeJS.ProcessEnv }) => Promise<DevCommandRun> {
  const directories: string[] = [];
  afterAll(async () => {
    await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
  });
  return async (entryPoint, flags, { timeoutMs, env = process.env }) => {
    const directory = await mkdtemp(join(tmpdir(), 'dev-command-results-'));
    directories.push(directory);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', entryPoint, ...flags, '--results', directory], { timeout: timeoutMs, env });
    const [file] = (await readdir(directory)).filter((name) => name.endsWith('.json'));
    return { stdout, results: JSON.parse(await readFile(join(directory, file!), 'utf8')) };
  };
}
