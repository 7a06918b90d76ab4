import { afterEach, describe, expect, it } from 'vitest';
import { sendEntry } from '../../src/sync/send-entry.js';
import { connectedUser } from '../helpers/flows.js';
import { addMeal, changeMeal, deleteMeal } from './helpers.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { syncStatus } from '../helpers/sync-status.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const DATE = '2026-03-10';
const breakfast = { name: 'Oats', carbs: 60, protein: 12, absorptionType: 'RAPID', logged_at: `${DATE}T08:15:00+01:00` };
const lunch = { name: 'Rice', carbs: 80.5, logged_at: `${DATE}T12:30:00.250+01:00` };

function dayOf(userId: number, date = DATE) {
  return { userId, kind: 'nutrition' as const, subject: date };
}

async function sandboxDay(date = DATE) {
  const athletes = Object.values((await stack.sandboxState()).athletes);
  return athletes[0]?.nutrition[date];
}

describe('the record a nutrition day is sent as', () => {
  it('sends the whole day, documented fields as items and the rest in rawJson, then shows it synced', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const first = await addMeal(client, breakfast);
    const second = await addMeal(client, lunch);
    expect(await sendEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');

    expect((await sandboxDay())!.payload).toEqual({
      date: DATE,
      items: [
        { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00', absorptionType: 'RAPID' },
        { name: 'Rice', carbs: 80.5, logged_at: '2026-03-10T12:30:00.250+01:00' },
      ],
      rawJson: { source: 'athlete-sync', items: [{ id: first.id, protein: 12 }, { id: second.id }] },
    });
    const [status] = await syncStatus(client, DATE);
    expect(status).toMatchObject({ kind: 'nutrition', date: DATE, status: 'synced', syncedVersion: 2 });
    expect(Date.parse(status!.syncedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(status!.syncedAt).toMatch(/Z$/);
  });

  it('leaves a deleted item out of the next upsert, and sends an empty list when the last one goes', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const deps = stack.sendDependencies();
    const first = await addMeal(client, breakfast);
    const second = await addMeal(client, lunch);
    await sendEntry(deps, dayOf(userId));
    await deleteMeal(client, first.id);
    await sendEntry(deps, dayOf(userId));
    expect((await sandboxDay())!.payload.items).toEqual([{ name: 'Rice', carbs: 80.5, logged_at: lunch.logged_at }]);
    await deleteMeal(client, second.id);
    await sendEntry(deps, dayOf(userId));
    expect((await sandboxDay())!.payload.items).toEqual([]);
    expect((await sandboxDay())!.writes).toBe(3);
  });

  it('sends both days when an item moves to another day', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const deps = stack.sendDependencies();
    const item = await addMeal(client, breakfast);
    await sendEntry(deps, dayOf(userId));
    await changeMeal(client, item.id, { logged_at: '2026-03-11T08:15:00+01:00' });
    await sendEntry(deps, dayOf(userId));
    await sendEntry(deps, dayOf(userId, '2026-03-11'));
    expect((await sandboxDay(DATE))!.payload.items).toEqual([]);
    expect((await sandboxDay('2026-03-11'))!.payload.items).toHaveLength(1);
  });
});
