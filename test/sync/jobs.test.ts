import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenCipher } from '../../src/connections/token-crypto.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { WAITING_FOR_CONNECTION, syncEntry } from '../../src/sync/jobs.js';
import { findConnection } from '../../src/connections/connection.repository.js';
import { createLogger } from '../../src/logger.js';
import { takeTurn } from '../../src/sync/turn.js';
import { connect, connectedUser } from '../helpers/flows.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { addMeal, changeMeal, deleteMeal, syncStatus } from '../helpers/meals.js';
import { startStack, type Stack } from '../helpers/stack.js';

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

describe('syncing a nutrition day', () => {
  it('sends the whole day, documented fields as items and the rest in rawJson, then shows it synced', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const first = await addMeal(client, breakfast);
    const second = await addMeal(client, lunch);
    expect(await syncEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');

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
    await syncEntry(deps, dayOf(userId));
    await deleteMeal(client, first.id);
    await syncEntry(deps, dayOf(userId));
    expect((await sandboxDay())!.payload.items).toEqual([{ name: 'Rice', carbs: 80.5, logged_at: lunch.logged_at }]);
    await deleteMeal(client, second.id);
    await syncEntry(deps, dayOf(userId));
    expect((await sandboxDay())!.payload.items).toEqual([]);
    expect((await sandboxDay())!.writes).toBe(3);
  });

  it('sends both days when an item moves to another day', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const deps = stack.sendDependencies();
    const item = await addMeal(client, breakfast);
    await syncEntry(deps, dayOf(userId));
    await changeMeal(client, item.id, { logged_at: '2026-03-11T08:15:00+01:00' });
    await syncEntry(deps, dayOf(userId));
    await syncEntry(deps, dayOf(userId, '2026-03-11'));
    expect((await sandboxDay(DATE))!.payload.items).toEqual([]);
    expect((await sandboxDay('2026-03-11'))!.payload.items).toHaveLength(1);
  });

  it('does nothing for a day that is already clean', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const deps = stack.sendDependencies();
    await addMeal(client, breakfast);
    await syncEntry(deps, dayOf(userId));
    expect(await syncEntry(deps, dayOf(userId))).toBe('clean');
    expect((await sandboxDay())!.writes).toBe(1);
  });

  it('makes no call for a user without nutrition:write; the day waits, pending', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', withheldScopes: ['nutrition:write'] } });
    const { client, userId } = await connectedUser(stack);
    await addMeal(client, breakfast);
    expect(await syncEntry(stack.sendDependencies(), dayOf(userId))).toBe('waiting-for-connection');
    expect((await stack.sandboxState()).counters.requests['POST /api/nutrition']).toBeUndefined();
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: 'nutrition', date: DATE, status: 'pending', error: WAITING_FOR_CONNECTION, problem: 'needs-connection' },
    ]);
  });

  it('keeps the day pending, held up on this side and retried, when the stored tokens are sealed with a key this worker lacks', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await addMeal(client, breakfast);
    // A worker not yet given the key that sealed this user's tokens (a rotation under way).
    const api = stack.serviceApi(stack.accessTokens({ cipher: createTokenCipher(randomBytes(32)) }));
    const deps = stack.sendDependencies(api);
    await expect(syncEntry(deps, dayOf(userId))).rejects.toMatchObject({ kind: 'retryable', heldHere: true });
    expect(await syncStatus(client, DATE)).toEqual([
      {
        kind: 'nutrition',
        date: DATE,
        status: 'pending',
        error: 'the stored tokens are sealed with a key this process does not have; retried later',
        problem: 'held-here',
      },
    ]);
    expect((await stack.sandboxState()).counters.requests['POST /api/nutrition']).toBeUndefined();
    expect(await syncEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');
  });

  it('answers a 401 on the data call with one refresh and one retry', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 1 } });
    const { client, userId } = await connectedUser(stack);
    await addMeal(client, breakfast);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The app's clock runs behind: it believes the token is fresh, the service says it expired.
    const behind = () => new Date(Date.now() - 60_000);
    const api = stack.serviceApi(stack.accessTokens({ clock: behind }));
    expect(await syncEntry(stack.sendDependencies(api), dayOf(userId))).toBe('synced');
    const { counters } = await stack.sandboxState();
    expect(counters.requests['POST /api/nutrition']).toEqual({ '401': 1, '201': 1 });
    expect(counters.refreshRequests).toBe(1);
  });

  it('marks the day failed on a permanent refusal, with the message, until the next change', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const item = await addMeal(client, breakfast);
    const refusing = serviceApiWith({
      upsertNutrition: async () => {
        throw new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many');
      },
    });
    expect(await syncEntry(stack.sendDependencies(refusing), dayOf(userId))).toBe('failed');
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: 'nutrition', date: DATE, status: 'failed', error: 'HTTP 400: invalid_request: items.0.carbs: too many', problem: 'refused' },
    ]);
    expect(await syncEntry(stack.sendDependencies(refusing), dayOf(userId))).toBe('clean');
    await changeMeal(client, item.id, { carbs: 50 });
    expect(await syncStatus(client, DATE)).toEqual([{ kind: 'nutrition', date: DATE, status: 'pending' }]);
    expect(await syncEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');
  });

  it('on a 403 insufficient_scope, waits for a reconnect and drops the scope, so no turn sends the kind again until then', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await addMeal(client, breakfast);
    await stack.changeSandbox({ withdrawnScopes: ['nutrition:write'] });
    const deps = stack.sendDependencies();

    expect(await syncEntry(deps, dayOf(userId))).toBe('waiting-for-connection');
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: 'nutrition', date: DATE, status: 'pending', error: WAITING_FOR_CONNECTION, problem: 'needs-connection' },
    ]);
    expect((await findConnection(stack.db, userId))!.scopes).not.toContain('nutrition:write');
    const turnDeps = { ...deps, budget: stack.budget, freshAllowance: stack.freshAllowance, logger: createLogger('silent') };
    expect(await takeTurn(turnDeps, { quietMs: 0, freshAttempts: 8 }, 'fresh', userId, 0)).toEqual({ sent: 0, next: { next: 'done' } });
    expect((await stack.sandboxState()).counters.requests['POST /api/nutrition']).toEqual({ '403': 1 });

    await stack.changeSandbox({ withdrawnScopes: [] });
    await connect(client);
    expect((await findConnection(stack.db, userId))!.scopes).toContain('nutrition:write');
    expect(await syncEntry(deps, dayOf(userId))).toBe('synced');
  });

  it('keeps the day pending with the reason on a retryable failure, and throws for the queue to retry', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', faultRate: 1, faultKinds: ['503'] } });
    const { client, userId } = await connectedUser(stack);
    await addMeal(client, breakfast);
    const attempt = syncEntry(stack.sendDependencies(), dayOf(userId));
    await expect(attempt).rejects.toMatchObject({ kind: 'retryable' });
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: 'nutrition', date: DATE, status: 'pending', error: expect.stringContaining('HTTP 503'), problem: 'service-busy' },
    ]);
  });

  it('leaves the day dirty when it changed while its upsert was on the way', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const item = await addMeal(client, breakfast);
    const real = stack.serviceApi();
    const editingMeanwhile = serviceApiWith({
      upsertNutrition: async (id, record) => {
        await changeMeal(client, item.id, { carbs: 70 });
        await real.upsertNutrition(id, record);
      },
    });
    expect(await syncEntry(stack.sendDependencies(editingMeanwhile), dayOf(userId))).toBe('changed-meanwhile');
    expect((await syncStatus(client, DATE))[0]!.status).toBe('pending');
    expect(await syncEntry(stack.sendDependencies(real), dayOf(userId))).toBe('synced');
    expect((await sandboxDay())!.payload.items[0]).toMatchObject({ carbs: 70 });
  });

  it('forgets an entry whose subject is no longer here (a hand edit), so no turn comes back for it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
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

    expect(await syncEntry(stack.sendDependencies(), { userId, kind: 'wellness', subject: DATE })).toBe('gone');
    expect(await stack.db.selectFrom('outbox').selectAll().where('user_id', '=', userId).execute()).toEqual([]);
  });
});
