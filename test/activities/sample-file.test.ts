import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/activities/activity-file-store.js';
import { SAMPLE_FIT_FILE } from '../../src/activities/sample-file.js';
import { sampleRun } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';
import { uploadActivity } from './helpers.js';

let stack: Stack;
let sync: RunningSync;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '100' } });
  sync = await startSync(stack);
});
afterAll(async () => {
  await sync.close();
  await stack.close();
});

describe('the sample .fit file in the repository, which the demo offers', () => {
  it('is the small run test/helpers/fit-files.ts makes, taken by the app and sent to the service as it is', async () => {
    const bytes = new Uint8Array(await readFile(SAMPLE_FIT_FILE));
    expect(bytes).toEqual(sampleRun());
    expect(bytes.length).toBeLessThan(2048);

    const { client } = await connectedUser(stack);
    await uploadActivity(client, bytes, { name: 'Morning run' });
    const held = await eventually('the sample at the service', async () => {
      const athlete = Object.values((await stack.sandboxState()).athletes)[0];
      return athlete?.workouts[sha256Hex(bytes)];
    });
    expect(held.payload).toMatchObject({ name: 'Morning run', bytes: bytes.length });
  });
});
