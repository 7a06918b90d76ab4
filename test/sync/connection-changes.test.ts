import { afterEach, describe, expect, it } from 'vitest';
import { markDirty } from '../../src/sync/outbox.js';
import type { SyncKind } from '../../src/sync/sync-kinds.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { workload } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

async function newUser() {
  const client = stack.browser();
  const email = await signUpNewUser(client);
  const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { client, userId };
}

async function historyOf(userId: number) {
  const history = await stack.db.selectFrom('histories').selectAll().where('user_id', '=', userId).executeTakeFirst();
  const fresh = await stack.db
    .selectFrom('outbox')
    .select('subject')
    .where('user_id', '=', userId)
    .where('fresh_at', 'is not', null)
    .execute();
  const turn = await stack.syncQueues.history.getDeduplicationJobId(`history-${userId}`);
  return { noted: history !== undefined, fresh: fresh.length, turnQueued: turn !== null };
}

describe('Connect', () => {
  it('makes everything that waited history: out of the fresh lane, noted, and its first turn queued', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await newUser();
    for (const date of ['2026-04-01', '2026-04-02'])
      await markDirty(stack.db, { userId, kind: workload.syncKind, subject: date }, new Date());
    expect(await historyOf(userId)).toEqual({ noted: false, fresh: 2, turnQueued: false });

    expect((await connect(client)).status).toBe(303);

    expect(await historyOf(userId)).toEqual({ noted: true, fresh: 0, turnQueued: true });
  });

  it('starts no history when nothing waits', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await newUser();
    expect((await connect(client)).status).toBe(303);
    expect(await historyOf(userId)).toEqual({ noted: false, fresh: 0, turnQueued: false });
  });

  it('ignores the entries of a kind it does not know (a newer version’s, met during a rolling deploy)', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await newUser();
    await stack.db
      .insertInto('outbox')
      .values({
        user_id: userId,
        kind: 'sleep-scores' as SyncKind,
        subject: '2026-04-01',
        version: 1,
        updated_at: new Date().toISOString(),
      })
      .execute();
    expect((await connect(client)).status).toBe(303);
    expect(await historyOf(userId)).toEqual({ noted: false, fresh: 0, turnQueued: false });
  });
});

describe('Disconnect', () => {
  it('ends the history and drops the queued turn; the entries wait for the next Connect', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await newUser();
    await markDirty(stack.db, { userId, kind: workload.syncKind, subject: '2026-04-01' }, new Date());
    await connect(client);
    const csrf = (await (await client.get('/')).text()).match(/name="_csrf" value="([^"]+)"/)![1]!;
    expect((await client.postForm('/disconnect', { _csrf: csrf })).status).toBe(303);
    expect(await historyOf(userId)).toEqual({ noted: false, fresh: 0, turnQueued: false });
    const waiting = await stack.db.selectFrom('outbox').select('subject').where('user_id', '=', userId).execute();
    expect(waiting).toEqual([{ subject: '2026-04-01' }]);

    expect((await connect(client)).status).toBe(303);
    expect(await historyOf(userId)).toEqual({ noted: true, fresh: 0, turnQueued: true });
  });
});
