import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  closeSyncQueues,
  createSyncQueues,
  FINISHED_JOBS_KEPT,
  JOB,
  queueNextTurn,
  queueTurns,
  scheduleKeepAlive,
} from '../../src/sync/queue.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

const queues = createSyncQueues({ url: inject('redisUrl'), maxRetriesPerRequest: null }, testRedisPrefix());

afterAll(async () => {
  await closeSyncQueues(queues);
});

describe('the sync queues', () => {
  it('keep finished jobs for a bounded time and number: turns, and the keep-alive job scheduler’s jobs', async () => {
    await queueTurns(queues, 'fresh', [1]);
    await queueNextTurn(queues, 'history', { userId: 2, failures: 0 }, 60_000);
    await scheduleKeepAlive(queues);
    const jobs = [...(await queues.fresh.getJobs(['waiting', 'delayed'])), ...(await queues.history.getJobs(['waiting', 'delayed']))];
    expect(jobs.map((job) => job.name).sort()).toEqual([JOB.keepAlive, JOB.turn, JOB.turn].sort());
    for (const job of jobs) {
      expect(job.opts, job.name).toMatchObject(FINISHED_JOBS_KEPT);
    }
    expect(FINISHED_JOBS_KEPT.removeOnComplete.count).toBeGreaterThan(0);
    expect(FINISHED_JOBS_KEPT.removeOnFail.count).toBeGreaterThan(0);
  });
});
