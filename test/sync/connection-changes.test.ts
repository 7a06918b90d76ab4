import { afterEach, describe, expect, it } from 'vitest';
import { markDirty } from '../../src/sync/outbox.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

describe('resuming waiting days on Connect', () => {
  it('queues every day that can be sent, marks one that never can failed, and leaves kinds it does not know', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const waiting = ['2026-04-01', '2026-04-02'];
    for (const date of waiting) await markDirty(stack.db, { userId, kind: 'nutrition', subject: date }, new Date());
    // A row an older version could write, and a kind of a newer version (met during a rolling deploy).
    await stack.db
      .insertInto('outbox')
      .values([
        { user_id: userId, kind: 'nutrition', subject: '+010000-01-01', version: 1, updated_at: new Date().toISOString() },
        { user_id: userId, kind: 'sleep-scores' as 'nutrition', subject: '2026-04-01', version: 1, updated_at: new Date().toISOString() },
      ])
      .execute();

    expect((await connect(client)).status).toBe(303);

    const queued = await stack.syncQueue.getJobs(['waiting', 'delayed']);
    expect(queued.map((job) => job.data).sort((a, b) => a.subject.localeCompare(b.subject))).toEqual(
      waiting.map((date) => ({ userId, kind: 'nutrition', subject: date })),
    );
    const unsent = { failed_version: null, last_error: null };
    expect(
      await stack.db
        .selectFrom('outbox')
        .select(['kind', 'subject', 'failed_version', 'last_error'])
        .where('user_id', '=', userId)
        .orderBy('kind')
        .orderBy('subject')
        .execute(),
    ).toEqual([
      {
        kind: 'nutrition',
        subject: '+010000-01-01',
        failed_version: 1,
        last_error: 'Not sent: "+010000-01-01" must be a date as YYYY-MM-DD from 1900-01-01 to 2100-12-31.',
      },
      { kind: 'nutrition', subject: '2026-04-01', ...unsent },
      { kind: 'nutrition', subject: '2026-04-02', ...unsent },
      { kind: 'sleep-scores', subject: '2026-04-01', ...unsent },
    ]);
  });
});
