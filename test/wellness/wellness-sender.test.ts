import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WellnessRecord } from '../../src/wellness/wellness.service.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import type { OutboxKey } from '../../src/sync/outbox.js';
import { wellnessSender } from '../../src/wellness/wellness-sender.js';
import { connectedUser } from '../helpers/flows.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deleteWellness, putWellness, wellnessDays } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

const DATE = '2026-11-20';

function dayOf(userId: number): OutboxKey {
  return { userId, kind: 'wellness', subject: DATE };
}

describe('syncing a wellness day', () => {
  it('upserts the day at the service with the measurements entered, and marks it synced', async () => {
    const { client, userId } = await connectedUser(stack);
    await putWellness(client, DATE, { hrv: 61.5, restingHr: 48 });
    const deps = stack.sendDependencies();

    expect(await sendEntry(deps, dayOf(userId))).toBe('synced');
    const { athletes } = await stack.sandboxState();
    expect(athletes.Ana?.wellness?.[DATE]).toMatchObject({
      writes: 1,
      payload: { date: DATE, hrv: 61.5, restingHr: 48, rawJson: { source: 'athlete-sync', hrv: 61.5, restingHr: 48 } },
    });
    expect(Object.keys(athletes.Ana!.wellness![DATE]!.payload).sort()).toEqual(['date', 'hrv', 'rawJson', 'restingHr']);
    expect(await wellnessDays(client, DATE)).toMatchObject([{ sync: { status: 'synced', syncedVersion: 1 } }]);
    expect(await sendEntry(deps, dayOf(userId))).toBe('clean');
  });

  it('sends nothing for a day deleted here: its entry is forgotten, and a send already under way finds it gone', async () => {
    const { client, userId } = await connectedUser(stack);
    const sent: WellnessRecord[] = [];
    const api = serviceApiWith({ postJson: async (_user, _path, record) => void sent.push(record as WellnessRecord) });
    const deps = stack.sendDependencies(api);
    await putWellness(client, DATE, { weight: 70 });
    expect((await deleteWellness(client, DATE)).status).toBe(204);

    expect(await sendEntry(deps, dayOf(userId))).toBe('clean');
    expect(await wellnessSender({ db: stack.db, api }).send(dayOf(userId))).toBe('gone');
    expect(sent).toEqual([]);
  });

  it('forgets an entry whose subject is no longer here (a hand edit), so no turn comes back for it', async () => {
    const { userId } = await connectedUser(stack);
    const orphan = {
      user_id: userId,
      kind: 'wellness' as const,
      subject: DATE,
      version: 1,
      fresh_at: null,
      updated_at: new Date().toISOString(),
    };
    await stack.db.insertInto('outbox').values(orphan).execute();

    expect(await sendEntry(stack.sendDependencies(), { userId, kind: 'wellness', subject: DATE })).toBe('gone');
    expect(await stack.db.selectFrom('outbox').selectAll().where('user_id', '=', userId).execute()).toEqual([]);
  });
});
