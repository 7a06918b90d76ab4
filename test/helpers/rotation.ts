import { JOB } from '../../src/sync/queue.js';
import type { Stack } from './stack.js';

/** `count` people with history waiting, straight in the store, a second apart: the first in the rotation first. */
export async function peopleWithHistory(stack: Stack, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let person = 0; person < count; person++) {
    const at = new Date(Date.UTC(2026, 10, 20, 10, 0, person)).toISOString();
    const { id } = await stack.db
      .insertInto('users')
      .values({ email: `rotation${person}@example.com`, password_hash: 'x', timezone: 'UTC', created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await stack.db.insertInto('histories').values({ user_id: id, started_at: at, total: 1, last_turn_at: at }).execute();
    ids.push(id);
  }
  return ids;
}

/** The people with a history turn waiting in the queue, in the queue's order. */
export async function historyTurnsQueued(stack: Stack): Promise<number[]> {
  const waiting = await stack.syncQueues.history.getJobs(['waiting'], 0, -1, true);
  return waiting.filter((job) => job.name === JOB.turn).map((job) => (job.data as { userId: number }).userId);
}
