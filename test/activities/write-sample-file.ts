import { writeFileSync } from 'node:fs';
import { SAMPLE_FIT_FILE } from '../../src/activities/sample-file.js';
import { sampleRun } from '../helpers/fit-files.js';

/** Writes the demo's sample .fit file again: `npx tsx test/activities/write-sample-file.ts`. */
writeFileSync(SAMPLE_FIT_FILE, sampleRun());
