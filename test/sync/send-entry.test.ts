import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTokenCipher } from '../../src/connections/token-crypto.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { WAITING_FOR_CONNECTION, sendEntry } from '../../src/sync/send-entry.js';
import { findConnection } from '../../src/connections/connection.repository.js';
import { createLogger } from '../../src/logger.js';
import { takeTurn } from '../../src/sync/turn.js';
import { connect, connectedUser } from '../helpers/flows.js';
import { appDay, serviceDay, workload, writeDay } from '../helpers/kinds.js';
import { upsertsThrough } from '../helpers/service-api.js';
import { syncStatus } from '../helpers/sync-status.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const DATE = '2026-03-10';
const KIND = workload.syncKind;
/** The service's requests of the test kind's upsert, as the sandbox counts them. */
const UPSERT = `POST ${workload.servicePath}`;

function dayOf(userId: number, date = DATE) {
  return { userId, kind: KIND, subject: date };
}

describe(`syncing a day (${workload.name})`, () => {
  it('does nothing for a day that is already clean', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    const deps = stack.sendDependencies();
    await writeDay(client, DATE);
    await sendEntry(deps, dayOf(userId));
    expect(await sendEntry(deps, dayOf(userId))).toBe('clean');
    expect((await serviceDay(stack, 'Ana', DATE))?.writes).toBe(1);
  });

  it(`makes no call for a user without ${workload.scope}; the day waits, pending`, async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', withheldScopes: [workload.scope] } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    expect(await sendEntry(stack.sendDependencies(), dayOf(userId))).toBe('waiting-for-connection');
    expect((await stack.sandboxState()).counters.requests[UPSERT]).toBeUndefined();
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: KIND, date: DATE, status: 'pending', error: WAITING_FOR_CONNECTION, problem: 'needs-connection' },
    ]);
  });

  it('keeps the day pending, held up on this side and retried, when the stored tokens are sealed with a key this worker lacks', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    // A worker not yet given the key that sealed this user's tokens (a rotation under way).
    const api = stack.serviceApi(stack.accessTokens({ cipher: createTokenCipher(randomBytes(32)) }));
    const deps = stack.sendDependencies(api);
    await expect(sendEntry(deps, dayOf(userId))).rejects.toMatchObject({ kind: 'retryable', heldHere: true });
    expect(await syncStatus(client, DATE)).toEqual([
      {
        kind: KIND,
        date: DATE,
        status: 'pending',
        error: 'the stored tokens are sealed with a key this process does not have; retried later',
        problem: 'held-here',
      },
    ]);
    expect((await stack.sandboxState()).counters.requests[UPSERT]).toBeUndefined();
    expect(await sendEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');
  });

  it('answers a 401 on the data call with one refresh and one retry', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 1 } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The app's clock runs behind: it believes the token is fresh, the service says it expired.
    const behind = () => new Date(Date.now() - 60_000);
    const api = stack.serviceApi(stack.accessTokens({ clock: behind }));
    expect(await sendEntry(stack.sendDependencies(api), dayOf(userId))).toBe('synced');
    const { counters } = await stack.sandboxState();
    expect(counters.requests[UPSERT]).toEqual({ '401': 1, '201': 1 });
    expect(counters.refreshRequests).toBe(1);
  });

  it('marks the day failed on a permanent refusal, with the message, until the next change', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    const refusing = upsertsThrough(stack.serviceApi(), async () => {
      throw new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many');
    });
    expect(await sendEntry(stack.sendDependencies(refusing), dayOf(userId))).toBe('failed');
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: KIND, date: DATE, status: 'failed', error: 'HTTP 400: invalid_request: items.0.carbs: too many', problem: 'refused' },
    ]);
    expect(await sendEntry(stack.sendDependencies(refusing), dayOf(userId))).toBe('clean');
    await writeDay(client, DATE, 1);
    expect(await syncStatus(client, DATE)).toEqual([{ kind: KIND, date: DATE, status: 'pending' }]);
    expect(await sendEntry(stack.sendDependencies(), dayOf(userId))).toBe('synced');
  });

  it('on a 403 insufficient_scope, waits for a reconnect and drops the scope, so no turn sends the kind again until then', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    await stack.changeSandbox({ withdrawnScopes: [workload.scope] });
    const deps = stack.sendDependencies();

    expect(await sendEntry(deps, dayOf(userId))).toBe('waiting-for-connection');
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: KIND, date: DATE, status: 'pending', error: WAITING_FOR_CONNECTION, problem: 'needs-connection' },
    ]);
    expect((await findConnection(stack.db, userId))!.scopes).not.toContain(workload.scope);
    const turnDeps = { ...deps, budget: stack.budget, freshAllowance: stack.freshAllowance, logger: createLogger('silent') };
    expect(await takeTurn(turnDeps, { quietMs: 0, freshAttempts: 8 }, 'fresh', userId, 0)).toEqual({ sent: 0, next: { next: 'done' } });
    expect((await stack.sandboxState()).counters.requests[UPSERT]).toEqual({ '403': 1 });

    await stack.changeSandbox({ withdrawnScopes: [] });
    await connect(client);
    expect((await findConnection(stack.db, userId))!.scopes).toContain(workload.scope);
    expect(await sendEntry(deps, dayOf(userId))).toBe('synced');
  });

  it('keeps the day pending with the reason on a retryable failure, and throws for the queue to retry', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', faultRate: 1, faultKinds: ['503'] } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    const attempt = sendEntry(stack.sendDependencies(), dayOf(userId));
    await expect(attempt).rejects.toMatchObject({ kind: 'retryable' });
    expect(await syncStatus(client, DATE)).toEqual([
      { kind: KIND, date: DATE, status: 'pending', error: expect.stringContaining('HTTP 503'), problem: 'service-busy' },
    ]);
  });

  it('leaves the day dirty when it changed while its upsert was on the way', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack);
    await writeDay(client, DATE);
    const real = stack.serviceApi();
    const editingMeanwhile = upsertsThrough(real, async (_, upsert) => {
      await writeDay(client, DATE, 1);
      await upsert();
    });
    expect(await sendEntry(stack.sendDependencies(editingMeanwhile), dayOf(userId))).toBe('changed-meanwhile');
    expect((await syncStatus(client, DATE))[0]!.status).toBe('pending');
    expect(await sendEntry(stack.sendDependencies(real), dayOf(userId))).toBe('synced');
    expect((await serviceDay(stack, 'Ana', DATE))?.content).toEqual(await appDay(client, DATE));
  });
});
