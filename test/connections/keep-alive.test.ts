import { afterEach, describe, expect, it } from 'vitest';
import { findConnection, takeRefreshLease } from '../../src/connections/connection.repository.js';
import { keepConnectionsAlive } from '../../src/connections/keep-alive.js';
import { createLogger } from '../../src/logger.js';
import { connectedUser } from '../helpers/flows.js';
import { recordingStatements } from '../../src/dev/recorded-statements.js';
import { bodyOf, type Me } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);
const DAY_S = 24 * 3600;

async function keepAlive(secondsLater: number, db = stack.db, batchSize?: number): Promise<number> {
  const clock = later(secondsLater);
  return keepConnectionsAlive(db, stack.accessTokens({ clock }), clock, createLogger('silent'), batchSize);
}

describe('the keep-alive job', () => {
  it('refreshes an idle connection halfway through its refresh token’s lifetime, not before', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 30 * DAY_S, accessTokenTtlS: 40 * DAY_S } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    expect(await keepAlive(14 * DAY_S)).toBe(0);
    expect(await keepAlive(15 * DAY_S + 60)).toBe(1);
    const after = (await stack.storedGrant(userId))!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.refreshExpiresAt!.getTime()).toBeGreaterThan(before.refreshExpiresAt!.getTime());
    expect((await stack.sandboxState()).counters.tokenGrants.refresh_token).toBe(1);
  });

  it('refreshes a week after the last refresh when the refresh token’s lifetime is unknown', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 30 * DAY_S } });
    await connectedUser(stack);
    expect(await keepAlive(6 * DAY_S)).toBe(0);
    expect(await keepAlive(7 * DAY_S + 60)).toBe(1);
  });

  it('settles an idle connection’s interrupted refresh at its next run, not days later', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 30 * DAY_S } });
    const { userId } = await connectedUser(stack);
    // The lease a worker killed mid-refresh leaves behind, run out.
    const connection = (await findConnection(stack.db, userId))!;
    expect(await takeRefreshLease(stack.db, connection, { owner: 'a killed worker', until: new Date() })).toBe(true);
    expect(await keepAlive(60)).toBe(1);
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', refreshLease: undefined });
    expect((await stack.sandboxState()).counters.tokenGrants.refresh_token).toBe(1);
  });
});

describe('the keep-alive’s reads', () => {
  it('read the connections a page at a time, along the user ids, without their tokens: a 3-page run refreshes everyone once', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 30 * DAY_S, accessTokenTtlS: 40 * DAY_S } });
    for (let person = 0; person < 5; person++) await connectedUser(stack);
    const recording = recordingStatements(stack.db);

    expect(await keepAlive(15 * DAY_S + 60, recording.db, 2)).toBe(5);

    expect((await stack.sandboxState()).counters.tokenGrants.refresh_token).toBe(5);
    const pages = recording.on('connections');
    expect(pages).toHaveLength(3);
    for (const page of pages) {
      expect(page.sql).toMatch(/ limit /);
      expect(page.sql).not.toMatch(/sealed|\*/);
    }
    expect(pages.map((page) => page.parameters[0])).toEqual([0, ...(await userIds()).filter((_, index) => index % 2 === 1).slice(0, 2)]);
  });
});

/** Every connected user id, in order. */
async function userIds(): Promise<number[]> {
  const rows = await stack.db.selectFrom('connections').select('user_id').orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}

describe('refresh-token expiry on the dashboard', () => {
  it('warns when reconnecting will soon be needed', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 3 * DAY_S } });
    const { client } = await connectedUser(stack);
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('data-testid="reconnect-soon"');
    expect(dashboard).toContain('Connected');
  });

  it('shows needs reconnecting once the refresh token has expired, before any call', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 1 } });
    const { client } = await connectedUser(stack);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await bodyOf<Me>(await client.get('/api/me'))).connection?.status).toBe('needs_reconnect');
    expect(await (await client.get('/')).text()).toContain('Needs reconnecting');
    expect((await stack.sandboxState()).counters.refreshRequests).toBe(0);
  });
});
