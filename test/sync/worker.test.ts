import type { Job, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { NutritionRecord, ServiceApi } from '../../src/provider/api.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { markDirty } from '../../src/sync/outbox.js';
import { JOB, scheduleRepeatingJobs } from '../../src/sync/queue.js';
import { sweepDirtyEntries } from '../../src/sync/sweeper.js';
import { connectedUser } from '../helpers/flows.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { addMeal, changeMeal, syncStatus } from '../helpers/meals.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSyncWorker } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;
let worker: Worker | undefined;

afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await stack.close();
});

const DATE = '2026-04-01';
const meal = { name: 'Banana', carbs: 27, absorptionType: 'RAPID', logged_at: `${DATE}T10:00:00+02:00` };

function startWorker(api: Partial<ServiceApi>, logger = createLogger('silent')): Worker {
  worker = startSyncWorker(stack, stack.sendDependencies(serviceApiWith(api)), logger);
  return worker;
}

function sweep(): Promise<number> {
  return sweepDirtyEntries({ db: stack.db, queue: stack.syncQueue, logger: createLogger('silent'), clock: () => new Date() });
}

function completedDayJobs(): Promise<Job[]> {
  return stack.syncQueue.getJobs(['completed']).then((jobs) => jobs.filter((job) => job.name === JOB.syncEntry));
}

describe('the sync worker', () => {
  it('debounces a burst of edits into one upsert', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '1500' } });
    const { client } = await connectedUser(stack);
    startWorker(stack.serviceApi());
    const item = await addMeal(client, meal);
    for (let carbs = 1; carbs <= 5; carbs++) await changeMeal(client, item.id, { carbs });
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
    const day = Object.values((await stack.sandboxState()).athletes)[0]!.nutrition[DATE]!;
    expect(day.writes).toBe(1);
    expect(day.payload.items[0]).toMatchObject({ carbs: 5 });
  });

  it('works under a hash-tagged REDIS_PREFIX, as Redis Cluster needs', async () => {
    const prefix = `{${testRedisPrefix()}}`;
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '200', REDIS_PREFIX: prefix } });
    const { client } = await connectedUser(stack);
    startWorker(stack.serviceApi());
    await addMeal(client, meal);
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
    expect(await stack.syncQueue.getJobCounts('completed')).toEqual({ completed: 1 });
    expect(stack.syncQueue.keys.completed).toMatch(new RegExp(`^${prefix.replace(/[{}]/g, '\\$&')}:`));
  });

  it('syncs an edit made while the day’s upsert is in flight, in one more run after it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '100' } });
    const { client } = await connectedUser(stack);
    const real = stack.serviceApi();
    let releaseFirstUpsert!: () => void;
    const firstUpsertHeld = new Promise<void>((resolve) => (releaseFirstUpsert = resolve));
    const sent: NutritionRecord[] = [];
    startWorker({
      upsertNutrition: async (userId, record) => {
        sent.push(record);
        if (sent.length === 1) await firstUpsertHeld;
        await real.upsertNutrition(userId, record);
      },
    });
    const item = await addMeal(client, meal);
    await eventually('the first upsert to be in flight', async () => (sent.length === 1 ? true : undefined));
    await changeMeal(client, item.id, { name: 'Two bananas', carbs: 54 });
    releaseFirstUpsert();

    await eventually('the edit to reach the service', async () => {
      const day = Object.values((await stack.sandboxState()).athletes)[0]?.nutrition[DATE];
      return day?.payload.items[0]?.name === 'Two bananas' ? day : undefined;
    });
    expect(sent.map((record) => record.items[0]!.name)).toEqual(['Banana', 'Two bananas']);
    expect((await syncStatus(client, DATE))[0]!.status).toBe('synced');
  });

  it('waits out a 429’s Retry-After without spending an attempt', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50', SYNC_ATTEMPTS: '1' } });
    const { client } = await connectedUser(stack);
    const real = stack.serviceApi();
    const calls: number[] = [];
    startWorker({
      upsertNutrition: async (userId, record) => {
        calls.push(Date.now());
        if (calls.length === 1) throw new ServiceError('retryable', 'HTTP 429: slow down', { retryAfterMs: 700 });
        await real.upsertNutrition(userId, record);
      },
    });
    await addMeal(client, meal);
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
    // With a single attempt allowed, a spent attempt would have failed the job for good.
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(650);
    expect(await stack.syncQueue.getFailedCount()).toBe(0);
  });

  it('retries a 5xx with backoff and records why the day is still pending meanwhile', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    const real = stack.serviceApi();
    let failures = 0;
    let pendingWhileFailing: unknown;
    startWorker({
      upsertNutrition: async (userId, record) => {
        if (failures++ === 0) throw new ServiceError('retryable', 'HTTP 503: temporarily_unavailable');
        pendingWhileFailing = (await syncStatus(client, DATE))[0];
        await real.upsertNutrition(userId, record);
      },
    });
    await addMeal(client, meal);
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
    // The retry's time, recorded as BullMQ scheduled it (backoff of 1 s, jitter 0.5), is due when it runs.
    expect(pendingWhileFailing).toMatchObject({ status: 'pending', error: 'HTTP 503: temporarily_unavailable', problem: 'service-busy' });
    const { nextAttemptAt } = pendingWhileFailing as { nextAttemptAt: string };
    expect(Date.parse(nextAttemptAt) - Date.now()).toBeLessThan(200);
    expect(Date.now() - Date.parse(nextAttemptAt)).toBeLessThan(1500);
    const [job] = await completedDayJobs();
    expect(job!.attemptsMade).toBe(2); // the failed attempt and the one that succeeded
  });
});

describe('job logs', () => {
  it('carry the job’s id on every line written while it runs, its token refresh’s included', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' }, captureLogs: 'info' });
    const { client } = await connectedUser(stack);
    const anHourLater = () => new Date(Date.now() + 3600_000);
    const workerLogger = createLogger('info', 'worker', { write: (line: string) => void stack.logs.push(line) });
    startWorker(stack.serviceApi(stack.accessTokens({ clock: anHourLater })), workerLogger);
    await addMeal(client, meal);
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));

    const [job] = await completedDayJobs();
    const lines = stack.logs.map((line) => JSON.parse(line) as { msg: string; jobId?: string });
    const ofTheJob = lines.filter((line) => line.msg === 'tokens refreshed' || line.msg === 'entry processed');
    expect(ofTheJob.map((line) => line.msg)).toEqual(['tokens refreshed', 'entry processed']);
    expect(ofTheJob.map((line) => line.jobId)).toEqual([job!.id, job!.id]);
  });
});

describe('the sweeper', () => {
  it('enqueues a dirty day that has no job, once, and skips users who cannot be synced', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    await stack.changeSandbox({ withheldScopes: ['nutrition:write'] });
    const withoutScope = await connectedUser(stack);
    await stack.changeSandbox({ withheldScopes: [] });
    const needsReconnect = await connectedUser(stack);
    await stack.db.updateTable('connections').set({ status: 'needs_reconnect' }).where('user_id', '=', needsReconnect.userId).execute();
    const { userId } = await connectedUser(stack);
    const notConnected = await stack.db
      .insertInto('users')
      .values({ email: 'idle@example.com', password_hash: 'x', timezone: 'UTC', created_at: new Date().toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    // The days that cannot be sent are older, so they come first in the sweep's order.
    for (const other of [withoutScope.userId, needsReconnect.userId, notConnected.id]) {
      await markDirty(stack.db, { userId: other, kind: 'nutrition', subject: DATE }, new Date(Date.now() - 60_000));
    }
    await markDirty(stack.db, { userId, kind: 'nutrition', subject: DATE }, new Date());

    expect(await sweep()).toBe(1);
    expect(await sweep()).toBe(1);
    const waiting = await stack.syncQueue.getJobs(['waiting', 'delayed']);
    expect(waiting.map((job) => job.data)).toEqual([{ userId, kind: 'nutrition', subject: DATE }]);
  });

  it('marks a day that can never be sent failed with its reason, and sweeps every other user’s days past it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const first = await connectedUser(stack);
    const second = await connectedUser(stack);
    // Rows an older version could write (a meal logged at 9999-12-31T23:30:00Z in Berlin), or a
    // hand edit: older than every other change, so first in the sweep's order.
    const unsendable = [
      { user_id: first.userId, subject: '+010000-01-01' },
      { user_id: second.userId, subject: '-000001-12-31' },
      { user_id: second.userId, subject: '2026-02-30' },
    ];
    const longAgo = new Date(Date.now() - 60_000).toISOString();
    await stack.db
      .insertInto('outbox')
      .values(unsendable.map((row) => ({ ...row, kind: 'nutrition' as const, version: 2, updated_at: longAgo })))
      .execute();
    // Dirty days whose hints were lost: only the sweeper can find them.
    await markDirty(stack.db, { userId: first.userId, kind: 'nutrition', subject: '2026-04-01' }, new Date());
    await markDirty(stack.db, { userId: second.userId, kind: 'nutrition', subject: '2026-04-02' }, new Date());

    startWorker(stack.serviceApi());
    await scheduleRepeatingJobs(stack.syncQueue, 200);

    for (const [{ client }, date] of [[first, '2026-04-01'], [second, '2026-04-02']] as const) {
      await eventually(`${date} to sync`, async () => ((await syncStatus(client, date))[0]?.status === 'synced' ? true : undefined), 15_000);
    }
    const failed = await stack.db
      .selectFrom('outbox')
      .select(['subject', 'version', 'failed_version', 'last_error'])
      .where('subject', 'in', unsendable.map((row) => row.subject))
      .execute();
    expect(failed).toHaveLength(3);
    for (const row of failed) {
      expect(row.failed_version).toBe(row.version);
      expect(row.last_error).toBe(`Not sent: "${row.subject}" must be a date as YYYY-MM-DD from 1900-01-01 to 2100-12-31.`);
    }
  });

  it('marks failed a dirty day whose user id cannot be queued, and sweeps every other user’s days past it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    // A hand edit: a user with id 0, connected with a copy of a real grant, whose dirty day is
    // older than every other change, so first in the sweep's order.
    await stack.db
      .insertInto('users')
      .values({ id: 0, email: 'zero@example.com', password_hash: 'x', timezone: 'UTC', created_at: new Date().toISOString() })
      .execute();
    const grant = await stack.db.selectFrom('connections').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
    await stack.db.insertInto('connections').values({ ...grant, user_id: 0 }).execute();
    await markDirty(stack.db, { userId: 0, kind: 'nutrition', subject: DATE }, new Date(Date.now() - 60_000));
    await markDirty(stack.db, { userId, kind: 'nutrition', subject: DATE }, new Date());

    expect(await sweep()).toBe(2);
    const waiting = await stack.syncQueue.getJobs(['waiting', 'delayed']);
    expect(waiting.map((job) => job.data)).toEqual([{ userId, kind: 'nutrition', subject: DATE }]);
    const unsendable = await stack.db
      .selectFrom('outbox')
      .select(['version', 'failed_version', 'last_error'])
      .where('user_id', '=', 0)
      .executeTakeFirstOrThrow();
    expect(unsendable.failed_version).toBe(unsendable.version);
    expect(unsendable.last_error).toBe('Not sent: user id 0 is not a positive whole number.');
  });
});

describe('a day job whose data can never be valid', () => {
  it('fails at once, without retries, and the worker goes on with other days', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    // Queued by a version before the date bounds.
    const invalid = await stack.syncQueue.add(JOB.syncEntry, { userId: 1, kind: 'nutrition', subject: '+010000-01-01' });
    startWorker(stack.serviceApi());
    await addMeal(client, meal);
    await eventually('the day to sync', async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined));
    await eventually('the invalid job to fail', async () => ((await invalid.getState()) === 'failed' ? true : undefined), 5_000);
    expect((await stack.syncQueue.getJob(invalid.id!))!.attemptsMade).toBe(1);
  });
});
