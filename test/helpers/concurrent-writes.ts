import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { TestDatabase } from './database.js';
import { run } from './processes.js';

/**
 * Several processes writing the same rows at once, as web and worker processes do: what SQLite's
 * one writer made safe must hold on Postgres, where transactions run side by side. A writer is a
 * fixture script that calls `reportWrites`; a test starts several with `writeConcurrently`.
 */

/** What one writer process did: how many writes landed, how many were refused, and the errors. */
export interface WriterReport {
  landed: number;
  refused: number;
  errors: string[];
}

/**
 * In a writer process: from `startAt` (epoch ms), runs `rounds` rounds of `writes(round)` one at a
 * time, as one request or job makes them (true: landed; false: refused), and prints its report.
 */
export async function reportWrites(
  startAt: number,
  rounds: number,
  writes: (round: number) => Array<() => Promise<boolean>>,
): Promise<void> {
  const report: WriterReport = { landed: 0, refused: 0, errors: [] };
  await sleep(Math.max(0, startAt - Date.now()));
  for (let round = 0; round < rounds; round++) {
    for (const write of writes(round)) {
      try {
        if (await write()) report.landed += 1;
        else report.refused += 1;
      } catch (error) {
        report.errors.push(String(error));
      }
    }
  }
  console.log(JSON.stringify(report));
}

/** Runs the `writer` script once per entry of `envs` (each process's own variables besides `shared`), all starting to write at the same moment. */
export async function writeConcurrently(
  writer: string,
  database: TestDatabase,
  shared: Record<string, string>,
  envs: Array<Record<string, string>>,
): Promise<WriterReport[]> {
  // Time for every process to boot, so that they write at once.
  const startAt = String(Date.now() + 5000);
  const finished = await Promise.all(
    envs.map((env) =>
      run(process.execPath, ['--import', 'tsx', writer], {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        START_AT: startAt,
        ...shared,
        ...env,
      }),
    ),
  );
  return finished.map((result) => {
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as WriterReport;
  });
}

/** The writes of every report that landed, or were refused. */
export function total(reports: WriterReport[], count: 'landed' | 'refused'): number {
  return reports.reduce((sum, report) => sum + report[count], 0);
}
