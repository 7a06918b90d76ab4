import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

/** The name, without extension, of a run's files: when it started. */
export function resultsStamp(startedAt: Date): string {
  return startedAt.toISOString().replaceAll(':', '-');
}

/** Writes one run's figures as `<directory>/<prefix><start time>.json`, with the machine they were measured on. */
export async function writeRunResults(directory: string, prefix: string, startedAt: Date, figures: object): Promise<string> {
  await mkdir(directory, { recursive: true });
  const path = `${directory}/${prefix}${resultsStamp(startedAt)}.json`;
  const machine = { cpus: availableParallelism(), node: process.version, platform: process.platform };
  await writeFile(path, `${JSON.stringify({ startedAt: startedAt.toISOString(), machine, ...figures }, null, 2)}\n`);
  return path;
}
