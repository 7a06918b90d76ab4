import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { findConnection } from '../../src/connections/connection.repository.js';
import type { Settings } from '../../src/sandbox/settings.js';
import { WAITING_FOR_CONNECTION } from '../../src/sync/send-entry.js';
import { connectedUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { appDay, serviceDay, writeDay } from '../helpers/kinds.js';
import { syncStatus } from '../helpers/sync-status.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/** Refreshed at half their life; longer than the hold, so a refreshed token is still fresh when its answer arrives. */
const ACCESS_TOKEN_TTL_S = 6;
/** The life of the token issued at Connect: short, so that the worker's job must refresh it a second later. */
const FIRST_TOKEN_TTL_S = 2;
/** The worker's patience with the token endpoint (ATHLETE_TIMEOUT_S); its refresh lease lasts 2 × this + 5 s. */
const TOKEN_TIMEOUT_S = 3;
/** How long the service holds the refresh: time to stop the worker before it would give up waiting. */
const HELD_MS = 2000;
const DATE = '2026-03-10';
/** How often the next worker sweeps (SYNC_SWEEP_INTERVAL_MS), so that a few sweeps fit in a short wait. */
const SWEEP_INTERVAL_MS = 500;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let stack: Stack;
const workers: Running[] = [];

afterEach(async () => {
  const stopped = workers.splice(0);
  await Promise.all(stopped.map((worker) => worker.stop('SIGKILL')));
  // The token canary: the workers logged at info, and no token the sandbox issued is in it.
  for (const worker of stopped) expect(worker.output()).not.toMatch(/sbx_(at|rt|code)_/);
  await stack.close();
});

async function startWorker(env: Record<string, string> = {}): Promise<Running> {
  const worker = await startWorkerEntryPoint(stack, env);
  workers.push(worker);
  return worker;
}

/**
 * A connected person makes a change while a worker runs; the day's job must refresh first, and the
 * service applies that refresh but holds its answer. Resolves while it is held.
 */
async function workerWithRefreshHeldOpen(sandbox: Partial<Settings>): Promise<{ client: CookieClient; userId: number; worker: Running }> {
  stack = await startStack({
    sandbox: { autoApprove: 'Ana', accessTokenTtlS: FIRST_TOKEN_TTL_S, ...sandbox },
    env: { ATHLETE_TIMEOUT_S: String(TOKEN_TIMEOUT_S), SYNC_QUIET_MS: '200' },
  });
  const { client, userId } = await connectedUser(stack);
  const refreshDueAt = Date.now() + (FIRST_TOKEN_TTL_S * 1000) / 2;
  const worker = await startWorker();
  await sleep(Math.max(0, refreshDueAt - Date.now()));
  await stack.changeSandbox({ accessTokenTtlS: ACCESS_TOKEN_TTL_S, tokenDelayMs: HELD_MS });
  await writeDay(client, DATE);
  await eventually('the service to hold the worker’s refresh', async () =>
    (await stack.sandboxState()).counters.refreshRequests === 1 ? true : undefined,
  );
  return { client, userId, worker };
}

/** The worker's JSON log lines. */
function logLines(worker: Running): Array<Record<string, unknown>> {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a worker stopped while the service holds its refresh open (rotation, reuse detection)', () => {
  it('on SIGTERM, stores the new tokens and sends the day before it exits 0', async () => {
    const { client, userId, worker } = await workerWithRefreshHeldOpen({});

    expect(await worker.stop('SIGTERM')).toBe(0);
    const stored = (await stack.storedGrant(userId))!;
    const state = await stack.sandboxState();
    expect(state.counters.reuseDetections).toBe(0);
    expect(state.grants[0]!.currentRefreshTokenSha256).toBe(sha256(stored.refreshToken));
    expect(stored.refreshLease).toBeUndefined();
    expect(await syncStatus(client, DATE)).toMatchObject([{ status: 'synced' }]);
  }, 60_000);

  it('on SIGKILL, against a service without a grace period: the next worker marks the connection as an interrupted refresh, once', async () => {
    const { client, userId, worker } = await workerWithRefreshHeldOpen({ reuseGraceS: 0 });
    await worker.stop('SIGKILL');
    await stack.changeSandbox({ tokenDelayMs: 0 });

    const next = await startWorker({ SYNC_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS) });
    // It waits for the killed worker's lease to run out, then presents the stored refresh token once.
    const connection = await eventually(
      'the connection to need reconnecting',
      async () => {
        const current = await findConnection(stack.db, userId);
        return current?.status === 'needs_reconnect' ? current : undefined;
      },
      6 * TOKEN_TIMEOUT_S * 1000,
    );
    expect(connection.statusReason).toBe('refresh_interrupted');
    expect(await (await client.get('/api/me')).json()).toMatchObject({ connection: { status: 'needs_reconnect' } });
    expect(await (await client.get('/')).text()).toContain('A refresh of your authorization was interrupted');
    expect(logLines(next)).toContainEqual(expect.objectContaining({ level: 40, userId, reason: 'refresh_interrupted' }));

    // Sweeps keep finding the day dirty; none asks the service for a token again.
    await sleep(3 * SWEEP_INTERVAL_MS);
    expect((await stack.sandboxState()).counters).toMatchObject({ refreshRequests: 2, reuseDetections: 1 });
    expect(await syncStatus(client, DATE)).toMatchObject([{ status: 'pending', error: WAITING_FOR_CONNECTION }]);
  }, 90_000);

  it('on SIGKILL, against a service with a reuse grace period: the next worker notices, recovers the grant, and the day is sent', async () => {
    const { client, userId, worker } = await workerWithRefreshHeldOpen({ reuseGraceS: 60 });
    await worker.stop('SIGKILL');
    await stack.changeSandbox({ tokenDelayMs: 0 });

    const next = await startWorker();
    await eventually(
      'the day to be sent',
      async () => ((await syncStatus(client, DATE))[0]?.status === 'synced' ? true : undefined),
      6 * TOKEN_TIMEOUT_S * 1000,
    );
    // Stopped, so that no refresh is in flight while the two sides are compared.
    expect(await next.stop('SIGTERM')).toBe(0);
    expect(logLines(next)).toContainEqual(expect.objectContaining({ level: 40, userId, msg: expect.stringMatching(/interrupted/) }));
    const stored = (await stack.storedGrant(userId))!;
    const state = await stack.sandboxState();
    expect(stored.status).toBe('connected');
    expect(state.counters.reuseDetections).toBe(0);
    expect(state.grants[0]).toMatchObject({ status: 'active', currentRefreshTokenSha256: sha256(stored.refreshToken) });
    expect((await serviceDay(stack, 'Ana', DATE))?.content).toEqual(await appDay(client, DATE));
  }, 90_000);
});
