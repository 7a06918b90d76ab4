import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityView } from '../../../src/activities/activities.js';
import { activityFileKey, sha256Hex } from '../../../src/activities/activity-file-store.js';
import { sendEntry } from '../../../src/sync/send-entry.js';
import { activityTraces, listActivities, renameActivity, uploadActivity } from '../../activities/helpers.js';
import { fitFile, fitFileOfSize, fitFileWithBadCrc } from '../../helpers/fit-files.js';
import { connectedUser } from '../../helpers/flows.js';
import type { CookieClient } from '../../helpers/http-client.js';
import { startStack, type SandboxWorkout, type Stack } from '../../helpers/stack.js';
import { startSync, type RunningSync } from '../../helpers/sync-worker.js';
import { eventually } from '../../helpers/wait.js';

let stack: Stack;
let sync: RunningSync | undefined;

afterEach(async () => {
  await sync?.close();
  sync = undefined;
  await stack.close();
});

async function startWith(env: Record<string, string> = {}) {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '100', ...env } });
  return connectedUser(stack);
}

async function startWorker() {
  sync = await startSync(stack);
}

/** The workouts the sandbox holds for its one athlete, by SHA-256. */
async function sandboxWorkouts(): Promise<Record<string, SandboxWorkout>> {
  return Object.values((await stack.sandboxState()).athletes)[0]?.workouts ?? {};
}

/** Waits until the activity's upload has settled (synced or failed) at this version of its name. */
async function settled(
  client: CookieClient,
  id: number,
  status: 'synced' | 'failed',
  name?: string,
  timeoutMs?: number,
): Promise<ActivityView> {
  return eventually(
    `the activity to be ${status}`,
    async () => {
      const activity = (await listActivities(client)).find((candidate) => candidate.id === id);
      return activity?.sync.status === status && (name === undefined || activity.name === name) ? activity : undefined;
    },
    timeoutMs,
  );
}

describe('an activity on its way to the service', () => {
  it('arrives as the same file, once per name: uploading it again sends nothing, a rename sends it once more', async () => {
    const { client } = await startWith();
    await startWorker();
    const file = fitFile(1);
    const activity = await uploadActivity(client, file, { name: 'Morning ride', metadata: '{"localId":"42"}' });
    await settled(client, activity.id, 'synced');
    expect(await sandboxWorkouts()).toEqual({
      [sha256Hex(file)]: expect.objectContaining({
        payload: expect.objectContaining({ name: 'Morning ride', metadata: { localId: '42' }, bytes: file.length }),
        writes: 1,
      }),
    });

    const again = await uploadActivity(client, file, { name: 'Morning ride', metadata: '{"localId":"42"}' }, 200);
    expect(again.sync.status).toBe('synced');
    expect((await renameActivity(client, activity.id, { name: 'Alpine ride' })).status).toBe(200);
    await settled(client, activity.id, 'synced', 'Alpine ride');
    await eventually('the rename to reach the service', async () =>
      (await sandboxWorkouts())[sha256Hex(file)]?.payload.name === 'Alpine ride' ? true : undefined,
    );
    // One upload for the file, none for the same file again, one for the rename.
    expect((await sandboxWorkouts())[sha256Hex(file)]).toMatchObject({ writes: 2 });
  });

  it('arrives byte for byte when it is 24 MiB: the service holds a workout under its SHA-256, of its size', async () => {
    const { client } = await startWith();
    await startWorker();
    const file = fitFileOfSize(24 * 1024 * 1024);
    const activity = await uploadActivity(client, file, { name: 'Long ride' });
    await settled(client, activity.id, 'synced', undefined, 120_000);
    expect(await sandboxWorkouts()).toEqual({
      [sha256Hex(file)]: expect.objectContaining({
        payload: expect.objectContaining({ name: 'Long ride', bytes: file.length }),
        writes: 1,
      }),
    });
  }, 180_000);

  it('is marked failed with the service’s message when the service refuses the file, and keeps its bytes', async () => {
    const { client, userId } = await startWith({ ACTIVITY_RETENTION: 'prune-after-upload' });
    const file = fitFile(2);
    const activity = await uploadActivity(client, file, { name: 'Ride' });
    // The service refuses what passed the app's check: here the bytes were damaged in the store after it.
    await stack.db
      .updateTable('activity_file_chunks')
      .set({ bytes: Buffer.from(fitFileWithBadCrc(2)) })
      .where('key', '=', activityFileKey(userId, activity.sha256))
      .execute();
    await startWorker();
    const failed = await settled(client, activity.id, 'failed');
    expect(failed).toMatchObject({
      fileStored: true,
      sync: { status: 'failed', error: expect.stringMatching(/^HTTP 400: .*CRC does not match/) },
    });
    expect(await sandboxWorkouts()).toEqual({});
    expect((await activityTraces(stack, userId)).files).toBe(1);
  });

  it('has its bytes pruned with ACTIVITY_RETENTION=prune-after-upload once an upload succeeds, not before, keeping its hash, name and status', async () => {
    const { client, userId } = await startWith({ ACTIVITY_RETENTION: 'prune-after-upload' });
    const file = fitFile(3);
    const activity = await uploadActivity(client, file, { name: 'Ride' });
    const entry = { userId, kind: 'activities' as const, subject: String(activity.id) };

    await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'] });
    await expect(sendEntry(stack.sendDependencies(), entry)).rejects.toMatchObject({ kind: 'retryable' });
    expect(await listActivities(client)).toMatchObject([
      { fileStored: true, sync: { status: 'pending', error: expect.stringMatching(/^HTTP 503/) } },
    ]);
    expect((await activityTraces(stack, userId)).files).toBe(1);

    await stack.changeSandbox({ faultRate: 0 });
    await startWorker();
    const synced = await settled(client, activity.id, 'synced');
    expect(synced).toMatchObject({ name: 'Ride', sha256: sha256Hex(file), bytes: file.length });
    await eventually('the bytes to be pruned', async () => ((await activityTraces(stack, userId)).files === 0 ? true : undefined));
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, fileStored: false, sync: { status: 'synced' } }]);
    expect(await sandboxWorkouts()).toEqual({ [sha256Hex(file)]: expect.objectContaining({ writes: 1 }) });
  });
});
