import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty folder in the system's temporary directory, removed when the test file ends (test/temporary-folders.setup.ts). */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  made.push(folder);
  return folder;
}

/** Removes every folder this test file made with temporaryFolder. */
export async function removeTemporaryFolders(): Promise<void> {
  await Promise.all(made.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
}
