import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markDirty } from '../../src/sync/outbox.js';
import { fitFile } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';
import { listActivities, uploadActivity } from './helpers.js';

let stack: Stack;
let sync: RunningSync | undefined;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
});
afterAll(async () => {
  await sync?.close();
  await stack.close();
});

describe('a turn', () => {
  it('marks an activity entry naming an id no row can have failed, and sends the person’s other entries', async () => {
    const { client, userId } = await connectedUser(stack);
    // A hand edit: larger than an id column holds on Postgres (32 bits).
    const tooLarge = String(2 ** 31);
    await markDirty(stack.db, { userId, kind: 'activities', subject: tooLarge }, new Date(Date.now() - 60_000));
    sync = await startSync(stack);
    const activity = await uploadActivity(client, fitFile(1));
    await eventually('the activity to sync', async () =>
      (await listActivities(client)).find((listed) => listed.id === activity.id)?.sync.status === 'synced' ? true : undefined,
    );

    const entry = await stack.db
      .selectFrom('outbox')
      .select(['version', 'failed_version', 'last_error'])
      .where('subject', '=', tooLarge)
      .executeTakeFirstOrThrow();
    expect(entry.failed_version).toBe(entry.version);
    expect(entry.last_error).toBe(`Not sent: "${tooLarge}" must be an activity id (a positive whole number up to 2147483647).`);
  });
});
