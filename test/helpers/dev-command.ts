import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { temporaryFolder } from './temporary-folders.js';

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
export function devCommandRunner(): (
  entryPoint: string,
  flags: string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv },
) => Promise<DevCommandRun> {
  return async (entryPoint, flags, { timeoutMs, env = process.env }) => {
    const directory = temporaryFolder('dev-command-results-');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', entryPoint, ...flags, '--results', directory], {
      timeout: timeoutMs,
      env,
    });
    const [file] = (await readdir(directory)).filter((name) => name.endsWith('.json'));
    return { stdout, results: JSON.parse(await readFile(join(directory, file!), 'utf8')) };
  };
}
