import { fileURLToPath } from 'node:url';

/**
 * A small .fit file in the repository that the app takes (a 20-minute run), for a person trying the
 * demo without a watch's file at hand; test/helpers/fit-files.ts makes it (`sampleRun`).
 */
export const SAMPLE_FIT_FILE = fileURLToPath(new URL('../../samples/morning-run.fit', import.meta.url));
