import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A small .fit file the app takes (a 20-minute run), for a person trying the demo without a watch's
 * file at hand; test/activities/write-sample-file.ts writes it.
 */
export const SAMPLE_FIT_FILE = fileURLToPath(new URL('./morning-run.fit', import.meta.url));

/** What the demo prints to point a person at the sample. */
export function sampleFileHint(): string {
  return `A .fit file to upload: ${relative(process.cwd(), SAMPLE_FIT_FILE)}`;
}
