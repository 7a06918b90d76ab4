import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRedisConnection } from '../../src/redis/redis.js';
import type { ServiceApi } from '../../src/provider/api.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { queueFreshTurns } from '../../src/sync/fresh-poller.js';
import { markDirty } from '../../src/sync/outbox.js';
import { JOB, queueTurns } from '../../src/sync/queue.js';
import { sweepHistory } from '../../src/sync/sweeper.js';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { connectedUser } from '../helpers/flows.js';
import { recordingStatements } from '../../src/dev/recorded-statements.js';
import { loseEveryKey } from '../../src/dev/stack.js';
import { connectedPerson, peopleWithHistory } from '../helpers/history.js';
import { appDay, serviceDay, serviceDays, workload, writeDay } from '../helpers/kinds.js';
import { upsertsThrough, type UpsertedDay } from '../helpers/service-api.js';
import { syncStatus } from '../helpers/sync-status.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;
let sync: RunningSync | undefined;

afterEach(async () => {
  await sync?.close();
  sync = undefined;
  await stack.close();
});

const DATE = '2026-04-01';

async function startWorker(api: ServiceApi, logger = createLogger('silent')): Promise<void> {
  sync = await startSync(stack, stack.sendDependencies(api), logger);
}

/** A worker whose upserts of day records go through `intercept` (service-api.ts). */
function startWorkerThrough(intercept: (record: UpsertedDay, upsert: () => Promise<void>) => Promise<void>): Promise<void> {
  return startWorker(upsertsThrough(stack.serviceApi(), intercept));
}

function daySynced(client: Parameters<typeof syncStatus>[0], date = DATE) {
  return eventually(`${date} to sync`, async () => ((await syncStatus(client, date))[0]?.status === 'synced' ? true : undefined));
}

function completedTurns(lane: 'fresh' | 'history') {
  return stack.syncQueues[lane].getJobs(['completed']).then((jobs) => jobs.filter((job) => job.name === JOB.turn));
}

/**
 * The lane's completed turns once there are at least `count`. A turn marks its day synced as it
 * sends it, and BullMQ marks the job completed a moment later, so a test that has seen the day
 * synced waits here before reading the turns.
 */
function turnsCompleted(lane: 'fresh' | 'history', count: number) {
  return eventually(`${count} ${lane} turns to complete`, async () => {
    const turns = await completedTurns(lane);
    return turns.length >= count ? turns : undefined;
  });
}

/** How many entries the lane's finished turns sent. */
async function sentIn(lane: 'fresh' | 'history'): Promise<number> {
  const turns = await completedTurns(lane);
  return turns.reduce((sum, turn) => sum + (turn.returnvalue as { sent: number }).sent, 0);
}

describe('the fresh lane', () => {
  it('sends a burst of edits as one upsert, once the person has left the day alone for the quiet period', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '1500' } });
    const { client } = await connectedUser(stack);
    await startWorker(stack.serviceApi());
    for (let n = 0; n <= 5; n++) await writeDay(client, DATE, n);
    await daySynced(client);
    const day = await serviceDay(stack, 'Ana', DATE);
    expect(day?.writes).toBe(1);
    expect(day?.content).toEqual(await appDay(client, DATE));
  });

  it('works under a hash-tagged REDIS_PREFIX, as Redis Cluster needs', async () => {
    const prefix = `{${testRedisPrefix()}}`;
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '200', REDIS_PREFIX: prefix } });
    const { client } = await connectedUser(stack);
    await startWorker(stack.serviceApi());
    await writeDay(client, DATE);
    await daySynced(client);
    expect(await turnsCompleted('fresh', 1)).toHaveLength(1);
    expect(stack.syncQueues.fresh.keys.completed).toMatch(new RegExp(`^${prefix.replace(/[{}]/g, '\\$&')}:`));
  });

  it('syncs an edit made while the day’s upsert is in flight, in one more turn after it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '100' } });
    const { client } = await connectedUser(stack);
    let releaseFirstUpsert!: () => void;
    const firstUpsertHeld = new Promise<void>((resolve) => (releaseFirstUpsert = resolve));
    const sent: UpsertedDay[] = [];
    await startWorkerThrough(async (record, upsert) => {
      sent.push(record);
      if (sent.length === 1) await firstUpsertHeld;
      await upsert();
    });
    await writeDay(client, DATE, 0);
    await eventually('the first upsert to be in flight', async () => (sent.length === 1 ? true : undefined));
    await writeDay(client, DATE, 1);
    const edited = await appDay(client, DATE);
    releaseFirstUpsert();

    await eventually('the edit to reach the service', async () =>
      isDeepStrictEqual((await serviceDay(stack, 'Ana', DATE))?.content, edited) ? true : undefined,
    );
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toEqual(sent[1]);
    expect((await syncStatus(client, DATE))[0]!.status).toBe('synced');
  });

  it('waits out a 429’s Retry-After without spending a try', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50', SYNC_ATTEMPTS: '1' } });
    const { client, userId } = await connectedUser(stack);
    const calls: number[] = [];
    await startWorkerThrough(async (_, upsert) => {
      calls.push(Date.now());
      if (calls.length === 1) throw new ServiceError('retryable', 'HTTP 429: slow down', { retryAfterMs: 700 });
      await upsert();
    });
    await writeDay(client, DATE);
    await daySynced(client);
    // With a single try allowed, a spent one would have moved the day into the person's history.
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(650);
    expect(await stack.db.selectFrom('histories').selectAll().where('user_id', '=', userId).execute()).toEqual([]);
  });

  it('retries a 5xx with backoff and records why the day is still pending meanwhile', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    let failures = 0;
    let pendingWhileFailing: unknown;
    await startWorkerThrough(async (_, upsert) => {
      if (failures++ === 0) throw new ServiceError('retryable', 'HTTP 503: temporarily_unavailable');
      pendingWhileFailing = (await syncStatus(client, DATE))[0];
      await upsert();
    });
    await writeDay(client, DATE);
    await daySynced(client);
    // The retry's time, recorded as the turn queued it (a backoff of 0.5 to 1 s), is due when it runs.
    expect(pendingWhileFailing).toMatchObject({ status: 'pending', error: 'HTTP 503: temporarily_unavailable', problem: 'service-busy' });
    const { nextAttemptAt } = pendingWhileFailing as { nextAttemptAt: string };
    expect(Date.parse(nextAttemptAt) - Date.now()).toBeLessThan(200);
    expect(Date.now() - Date.parse(nextAttemptAt)).toBeLessThan(1500);
    const outcomes = (await turnsCompleted('fresh', 2)).map((turn) => turn.returnvalue);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { outcome: 'retry', sent: 0 },
        { outcome: 'done', sent: 1 },
      ]),
    );
  });

  it('backs off after a failure that is not the service’s (a bug, the database away) instead of trying again at every poll', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    const calls: number[] = [];
    await startWorkerThrough(async (_, upsert) => {
      calls.push(Date.now());
      if (calls.length === 1) throw new TypeError('a bug');
      await upsert();
    });
    await writeDay(client, DATE);
    await daySynced(client);
    // The poller found the day due four times a second meanwhile; the retry waited for its backoff (0.5 to 1 s).
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(450);
  });

  it('sends the person’s other changes while one keeps failing: the entry tried least recently goes first', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    await startWorkerThrough(async (record, upsert) => {
      if (record.date === DATE) throw new ServiceError('retryable', 'HTTP 500: internal_error');
      await upsert();
    });
    await writeDay(client, DATE);
    await sleep(100);
    await writeDay(client, '2026-04-02');
    await daySynced(client, '2026-04-02');
    expect((await syncStatus(client, DATE))[0]).toMatchObject({ status: 'pending', problem: 'service-busy' });
  });

  it('sends a person’s first SYNC_FRESH_PER_PERSON_PER_MINUTE changes of the minute ahead of history and the rest as their history, each once; another person’s change still goes ahead', async () => {
    stack = await startStack({ env: { SYNC_QUIET_MS: '50', SYNC_FRESH_PER_PERSON_PER_MINUTE: '3' } });
    const [flooder, other] = [await connectedPerson(stack, 'Flo'), await connectedPerson(stack, 'Ana')];
    const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05'];
    for (const date of days) await writeDay(flooder.client, date);
    await writeDay(other.client, DATE);
    await startWorker(stack.serviceApi());

    const flooded = await eventually('every day to reach the service', async () => {
      const [ofFlo, ofAna] = [await serviceDays(stack, 'Flo'), await serviceDays(stack, 'Ana')];
      return ofFlo.length === days.length && ofAna.some((day) => day.date === DATE) ? ofFlo : undefined;
    });
    expect(flooded.map((day) => day.writes)).toEqual([1, 1, 1, 1, 1]);
    // Three of Flo's and Ana's one as changes of now; Flo's other two in Flo's history turns. A turn
    // is recorded completed just after its last upsert arrives.
    const sent = await eventually('the turns to be recorded', async () => {
      const counts = { fresh: await sentIn('fresh'), history: await sentIn('history') };
      return counts.fresh + counts.history === 6 ? counts : undefined;
    });
    expect(sent).toEqual({ fresh: 4, history: 2 });
  });

  it('moves a change still failing after SYNC_ATTEMPTS tries into the person’s history, which sends it later', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50', SYNC_ATTEMPTS: '2' } });
    const { client } = await connectedUser(stack);
    let calls = 0;
    await startWorkerThrough(async (_, upsert) => {
      if (++calls <= 2) throw new ServiceError('retryable', 'HTTP 500: internal_error');
      await upsert();
    });
    await writeDay(client, DATE);
    await daySynced(client);
    // The history row lives only until its turn has sent the day: the lanes' finished turns tell what happened.
    const sent = await eventually('the turns to be recorded', async () => {
      const counts = { fresh: await sentIn('fresh'), history: await sentIn('history') };
      return counts.history === 1 ? counts : undefined;
    });
    expect(sent).toEqual({ fresh: 0, history: 1 });
    expect(calls).toBe(3);
  }, 60_000);
});

describe('job logs', () => {
  it('carry the job’s id on every line written while it runs, its token refresh’s included', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' }, captureLogs: 'info' });
    const { client } = await connectedUser(stack);
    const anHourLater = () => new Date(Date.now() + 3600_000);
    const workerLogger = createLogger('info', 'worker', { write: (line: string) => void stack.logs.push(line) });
    sync = await startSync(stack, stack.sendDependencies(stack.serviceApi(stack.accessTokens({ clock: anHourLater }))), workerLogger);
    await writeDay(client, DATE);
    await daySynced(client);

    const [job] = await turnsCompleted('fresh', 1);
    const lines = stack.logs.map((line) => JSON.parse(line) as { msg: string; jobId?: string });
    const ofTheJob = lines.filter((line) => line.msg === 'tokens refreshed' || line.msg === 'turn taken');
    expect(ofTheJob.map((line) => line.msg)).toEqual(['tokens refreshed', 'turn taken']);
    expect(ofTheJob.map((line) => line.jobId)).toEqual([job!.id, job!.id]);
  });
});

describe('the fresh poller', () => {
  it('queues a turn for each connected person with a change due and no retry pending; the changes of those who cannot be synced become history', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const due = await connectedUser(stack);
    const tooRecent = await connectedUser(stack);
    const needsReconnect = await connectedUser(stack);
    await stack.db.updateTable('connections').set({ status: 'needs_reconnect' }).where('user_id', '=', needsReconnect.userId).execute();
    const notConnected = await stack.db
      .insertInto('users')
      .values({ email: 'idle@example.com', password_hash: 'x', timezone: 'UTC', created_at: new Date().toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const aWhileAgo = new Date(Date.now() - 120_000);
    for (const userId of [due.userId, needsReconnect.userId, notConnected.id])
      await markDirty(stack.db, { userId, kind: workload.syncKind, subject: DATE }, aWhileAgo);
    await markDirty(stack.db, { userId: tooRecent.userId, kind: workload.syncKind, subject: DATE }, new Date());
    const backingOff = await connectedUser(stack);
    await markDirty(stack.db, { userId: backingOff.userId, kind: workload.syncKind, subject: DATE }, aWhileAgo);
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    await stack.db
      .updateTable('outbox')
      .set({ last_error: 'HTTP 503', next_attempt_at: inAMinute })
      .where('user_id', '=', backingOff.userId)
      .execute();

    const poll = () => queueFreshTurns({ db: stack.db, queues: stack.syncQueues, clock: () => new Date(), quietMs: 60_000 });
    expect((await poll()).queued).toBe(1);
    expect((await poll()).queued).toBe(1);
    const waiting = await stack.syncQueues.fresh.getJobs(['waiting']);
    expect(waiting.map((job) => job.data)).toEqual([{ userId: due.userId, failures: 0 }]);
    const fresh = await stack.db.selectFrom('outbox').select('user_id').where('fresh_at', 'is not', null).orderBy('user_id').execute();
    expect(fresh.map((row) => row.user_id)).toEqual([due.userId, tooRecent.userId, backingOff.userId].sort((a, b) => a - b));
  });

  it('sets aside a change whose user id no turn can be queued for, and queues everyone else', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    // A hand edit: a user with id 0, connected with a copy of a real grant.
    await stack.db
      .insertInto('users')
      .values({ id: 0, email: 'zero@example.com', password_hash: 'x', timezone: 'UTC', created_at: new Date().toISOString() })
      .execute();
    const grant = await stack.db.selectFrom('connections').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
    await stack.db
      .insertInto('connections')
      .values({ ...grant, user_id: 0 })
      .execute();
    const aWhileAgo = new Date(Date.now() - 60_000);
    for (const id of [0, userId]) await markDirty(stack.db, { userId: id, kind: workload.syncKind, subject: DATE }, aWhileAgo);

    expect((await queueFreshTurns({ db: stack.db, queues: stack.syncQueues, clock: () => new Date(), quietMs: 0 })).queued).toBe(1);
    expect((await stack.syncQueues.fresh.getJobs(['waiting'])).map((job) => job.data)).toEqual([{ userId, failures: 0 }]);
    expect(await stack.db.selectFrom('outbox').select('fresh_at').where('user_id', '=', 0).execute()).toEqual([{ fresh_at: null }]);
  });

  it('gives turns to the people who have waited longest first', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const recent = await connectedUser(stack);
    const longest = await connectedUser(stack);
    await markDirty(stack.db, { userId: recent.userId, kind: workload.syncKind, subject: DATE }, new Date(Date.now() - 60_000));
    await markDirty(stack.db, { userId: longest.userId, kind: workload.syncKind, subject: DATE }, new Date(Date.now() - 120_000));

    await queueFreshTurns({ db: stack.db, queues: stack.syncQueues, clock: () => new Date(), quietMs: 0 });
    const waiting = await stack.syncQueues.fresh.getJobs(['waiting']);
    const inQueueOrder = waiting.sort((a, b) => a.timestamp - b.timestamp || Number(a.id) - Number(b.id));
    expect(inQueueOrder.map((job) => job.data.userId)).toEqual([longest.userId, recent.userId]);
  });

  it('counts the quiet period out by its own clock: a change stamped by a clock running ahead waits the difference', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const workerNow = new Date();
    await markDirty(stack.db, { userId, kind: workload.syncKind, subject: DATE }, new Date(workerNow.getTime() + 5_000));

    const poll = await queueFreshTurns({ db: stack.db, queues: stack.syncQueues, clock: () => workerNow, quietMs: 1_000 });
    expect(poll).toEqual({ queued: 0, nextDueInMs: 6_000 });
  });

  it('leaves alone an entry of a kind this version does not send (written by a newer one): no turn, no early look', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const unknownKind = { user_id: userId, kind: 'sleep_stages', subject: DATE, version: 1, updated_at: new Date().toISOString() };
    await stack.db
      .insertInto('outbox')
      .values({ ...unknownKind, fresh_at: new Date(Date.now() - 60_000).toISOString() })
      .execute();
    await stack.db
      .insertInto('outbox')
      .values({ ...unknownKind, subject: '2026-04-02', fresh_at: new Date(Date.now() + 60_000).toISOString() })
      .execute();

    const poll = await queueFreshTurns({ db: stack.db, queues: stack.syncQueues, clock: () => new Date(), quietMs: 0 });
    expect(poll).toEqual({ queued: 0, nextDueInMs: undefined });
  });
});

describe('a turn', () => {
  it('marks an entry that can never be sent failed with its reason, and sends the person’s other entries', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client, userId } = await connectedUser(stack);
    // Rows an older version could write (an item logged at 9999-12-31T23:30:00Z in Berlin), or a hand edit.
    const unsendable = ['+010000-01-01', '-000001-12-31', '2026-02-30'];
    const aWhileAgo = new Date(Date.now() - 60_000);
    for (const subject of unsendable) await markDirty(stack.db, { userId, kind: workload.syncKind, subject }, aWhileAgo);
    await startWorker(stack.serviceApi());
    await writeDay(client, DATE);
    await daySynced(client);

    const failed = await stack.db
      .selectFrom('outbox')
      .select(['subject', 'version', 'failed_version', 'last_error', 'fresh_at'])
      .where('subject', 'in', unsendable)
      .execute();
    expect(failed).toHaveLength(3);
    for (const row of failed) {
      expect(row).toMatchObject({ failed_version: row.version, fresh_at: null });
      expect(row.last_error).toBe(`Not sent: "${row.subject}" must be a date as YYYY-MM-DD from 1900-01-01 to 2100-12-31.`);
    }
  });

  it('whose job Redis lost while the turn ran ends with a warning, not an error, and what it sent stays sent', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack);
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = createLogger('info', 'test', {
      write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
    });
    await startWorker(
      upsertsThrough(stack.serviceApi(), async (_record, upsert) => {
        await loseEveryKey(stack.redis, stack.config.redis.prefix);
        await upsert();
      }),
      logger,
    );
    await writeDay(client, DATE);
    await eventually('the turn to end', async () => (lines.some((line) => line.msg.includes('its job left Redis')) ? true : undefined));

    expect(lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([]);
    expect((await serviceDay(stack, 'Ana', DATE))?.writes).toBe(1);
    const entry = await stack.db.selectFrom('outbox').select(['version', 'synced_version']).executeTakeFirstOrThrow();
    expect(entry.synced_version).toBe(entry.version);
  });

  it('whose job data can never be valid fails at once, without retries, and the worker goes on', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_QUIET_MS: '50' } });
    const { client } = await connectedUser(stack);
    // Queued by another version of the app.
    const invalid = await stack.syncQueues.fresh.add(JOB.turn, { userId: 'Ana', kind: workload.syncKind });
    await startWorker(stack.serviceApi());
    await writeDay(client, DATE);
    await daySynced(client);
    await eventually('the invalid job to fail', async () => ((await invalid.getState()) === 'failed' ? true : undefined), 5_000);
    expect((await stack.syncQueues.fresh.getJob(invalid.id!))!.attemptsMade).toBe(1);
  });
});

/** The people with a history turn waiting in the queue. */
async function historyTurnsQueued(): Promise<number[]> {
  const waiting = await stack.syncQueues.history.getJobs(['waiting'], 0, -1, true);
  return waiting.filter((job) => job.name === JOB.turn).map((job) => (job.data as { userId: number }).userId);
}

/** A retry scheduled for one entry of the person's, as a worker records it. */
async function retryScheduled(userId: number): Promise<void> {
  const at = new Date(Date.now() + 60_000).toISOString();
  await stack.db
    .insertInto('outbox')
    .values({ user_id: userId, kind: workload.syncKind, subject: DATE, version: 1, updated_at: at, last_error: '500', next_attempt_at: at })
    .onConflict((conflict) => conflict.columns(['user_id', 'kind', 'subject']).doUpdateSet({ next_attempt_at: at }))
    .execute();
}

async function retriesScheduled(): Promise<number> {
  const rows = await stack.db.selectFrom('outbox').select('user_id').where('next_attempt_at', 'is not', null).execute();
  return rows.length;
}

describe('the history lane', () => {
  it('sends what waited until Connect, in the person’s turns, and ends their history once all is sent', async () => {
    stack = await startStack();
    const { client, email } = await connectedPerson(stack, 'Ana', 3);
    const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const today = localToday(new Date(), 'Europe/Berlin');
    const days = [1, 2, 3].map((back) => addDays(today, -back));
    expect(await completedTurns('history')).toEqual([]);
    await startWorker(stack.serviceApi());
    for (const date of days) await daySynced(client, date);
    await eventually('the history to end', async () =>
      (await stack.db.selectFrom('histories').select('user_id').where('user_id', '=', userId).executeTakeFirst()) ? undefined : true,
    );
    const sent = await serviceDays(stack, 'Ana');
    expect(days.map((date) => sent.find((day) => day.date === date)?.writes)).toEqual([1, 1, 1]);
  });

  it('counts its own work toward a turn’s length, not its waits for the budget: at 10 requests/s one turn sends for up to 2 s', async () => {
    stack = await startStack({ env: { ATHLETE_RATE_LIMIT_PER_S: '10' } });
    await connectedPerson(stack, 'Ana', 40);
    await startWorker(stack.serviceApi());
    const [turn] = await turnsCompleted('history', 1);
    // Counted by the clock, a quarter second at 10 requests/s would hold 3 entries.
    expect((turn!.returnvalue as { sent: number }).sent).toBeGreaterThanOrEqual(10);
    expect(turn!.finishedOn! - turn!.processedOn!).toBeLessThan(2600);
  });

  it('is queued again from the store, in the rotation’s order, when Redis lost the queue', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const people = [await connectedUser(stack), await connectedUser(stack), await connectedUser(stack)];
    const lastTurns = ['2026-11-20T10:00:02Z', '2026-11-20T10:00:00Z', '2026-11-20T10:00:01Z'];
    for (const [index, { userId }] of people.entries()) {
      await stack.db
        .insertInto('histories')
        .values({ user_id: userId, started_at: lastTurns[index]!, total: 1, last_turn_at: lastTurns[index]! })
        .execute();
    }
    const sweep = () =>
      sweepHistory({ db: stack.db, queues: stack.syncQueues, redis: stack.redis, redisPrefix: stack.config.redis.prefix });
    await queueTurns(stack.syncQueues, 'history', [people[0]!.userId]);
    expect(await sweep()).toBe(3);
    const waiting = await stack.syncQueues.history.getJobs(['waiting'], 0, -1, true);
    const queued = waiting.filter((job) => job.name === JOB.turn).map((job) => (job.data as { userId: number }).userId);
    // The turn already queued keeps its place; the rest follow in the order of their last turns.
    expect(queued).toEqual([people[0]!.userId, people[1]!.userId, people[2]!.userId]);
  });

  it('is rebuilt by one process at a time: the first to notice the loss claims the mark, which the others then find', async () => {
    stack = await startStack();
    const mark = `${stack.config.redis.prefix}:sync:queue-built`;
    const rebuilding = sweepHistory({ db: stack.db, queues: stack.syncQueues, redis: stack.redis, redisPrefix: stack.config.redis.prefix });
    // Sent on the same connection as the sweep's first command, so answered right after it.
    const meanwhile = await stack.redis.get(mark);
    await rebuilding;

    expect(meanwhile).toMatch(/^rebuilding /);
    expect(Date.parse((await stack.redis.get(mark))!)).toBeGreaterThan(Date.now() - 60_000);
    expect(await stack.redis.pttl(mark)).toBe(-1);
  });

  it('is rebuilt by one of two workers started on an empty Redis: the other sweeps as usual and leaves the rebuild to it', async () => {
    stack = await startStack();
    const people = await peopleWithHistory(stack, 25);
    await retryScheduled(people[0]!);
    const otherRedis = createRedisConnection(stack.config.redis.target);
    const workers = [stack.redis, otherRedis].map((redis) => ({ redis, recording: recordingStatements(stack.db) }));

    await Promise.all(
      workers.map(({ redis, recording }) =>
        sweepHistory({ db: recording.db, queues: stack.syncQueues, redis, redisPrefix: stack.config.redis.prefix, headSize: 10 }),
      ),
    );
    await otherRedis.quit();

    // Forgetting the lost queue's retries is the rebuild's alone; both queue the head of the rotation, nobody twice.
    const rebuilt = workers.map(({ recording }) => recording.on('outbox').length);
    expect(rebuilt.sort()).toEqual([0, 1]);
    expect(await retriesScheduled()).toBe(0);
    expect(await historyTurnsQueued()).toEqual(people.slice(0, 10));
  });

  it('is rebuilt anew after a rebuild failed part way, without forgetting the retries the new queue scheduled since', async () => {
    stack = await startStack();
    const people = await peopleWithHistory(stack, 25);
    await retryScheduled(people[0]!);
    const sweep = (queues: typeof stack.syncQueues, db = stack.db) =>
      sweepHistory({ db, queues, redis: stack.redis, redisPrefix: stack.config.redis.prefix, headSize: 10 });
    // Redis goes away as the rebuild queues the head of the rotation.
    const history = stack.syncQueues.history;
    const failingHistory = Object.create(history, {
      addBulk: { value: () => Promise.reject(new Error('Redis went away')) },
    }) as typeof history;
    await expect(sweep({ ...stack.syncQueues, history: failingHistory })).rejects.toThrow('Redis went away');
    expect(await retriesScheduled()).toBe(0);
    // The new queue has scheduled a retry meanwhile: it is not the lost queue's, and stays.
    await retryScheduled(people[1]!);

    const recording = recordingStatements(stack.db);
    expect(await sweep(stack.syncQueues, recording.db)).toBe(10);

    expect(recording.on('outbox')).toEqual([]);
    expect(await retriesScheduled()).toBe(1);
    expect(await historyTurnsQueued()).toEqual(people.slice(0, 10));
    expect(await stack.redis.exists(`${stack.config.redis.prefix}:sync:rebuild-forgot-retries`)).toBe(0);
    expect(await stack.redis.pttl(`${stack.config.redis.prefix}:sync:queue-built`)).toBe(-1);
  });
});
