import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncEntry } from '../../src/sync/jobs.js';
import { listActivities, uploadActivity } from '../helpers/activities.js';
import { fitFile } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

describe('an activity whose stored bytes are lost', () => {
  it('is marked failed, asking for the file again, and uploading the same file again sends it', async () => {
    const { client, userId } = await connectedUser(stack);
    const file = fitFile(301);
    const activity = await uploadActivity(client, file, { name: 'Ride' });
    const entry = { userId, kind: 'activities' as const, subject: String(activity.id) };
    await stack.db.deleteFrom('activity_files').where('key', 'like', `${userId}/%`).execute();

    expect(await syncEntry(stack.sendDependencies(), entry)).toBe('failed');
    expect(await listActivities(client)).toMatchObject([{ sync: { status: 'failed', error: expect.stringMatching(/upload it again/) } }]);

    await uploadActivity(client, file, {}, 200);
    expect(await syncEntry(stack.sendDependencies(), entry)).toBe('synced');
    const workouts = Object.values((await stack.sandboxState()).athletes.Ana!.workouts);
    expect(workouts).toMatchObject([{ payload: { name: 'Ride' }, writes: 1 }]);
  });
});
