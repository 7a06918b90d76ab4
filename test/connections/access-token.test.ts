import { withRequestedScopes } from '../../src/connections/capabilities.js';
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { findConnection } from '../../src/connections/connection.repository.js';
import { createTokenCipher } from '../../src/connections/token-crypto.js';
import { createOAuthClient, type OAuthClient } from '../../src/provider/oauth.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { connect, connectedUser } from '../helpers/flows.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
/** The app's clock moved forward: tokens look older to the app, while the sandbox keeps real time. */
const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);

async function refreshCounts() {
  const { counters } = await stack.sandboxState();
  return { requests: counters.refreshRequests, succeeded: counters.tokenGrants.refresh_token ?? 0 };
}

/** A Redis key prefix no other AccessTokens uses: a process whose Redis lock does not see the others'. */
const anotherPrefix = testRedisPrefix;

/** An OAuth client whose refresh reaches the service and is applied, but whose answer never comes back: a process killed mid-refresh. */
function killedMidRefresh(): OAuthClient {
  const real = createOAuthClient(withRequestedScopes(stack.config.athlete));
  return {
    ...real,
    refresh: async (refreshToken, scopes) => {
      await real.refresh(refreshToken, scopes);
      return new Promise<never>(() => {});
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('accessTokenFor', () => {
  it('returns the stored token while it is fresh, without calling the service', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const stored = await stack.storedGrant(userId);
    expect(await stack.accessTokens().accessTokenFor(userId)).toBe(stored!.accessToken);
    expect((await refreshCounts()).requests).toBe(0);
  });

  it('refreshes within the margin, stores the rotated refresh token in the same write, and returns the new token', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 3600 } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    const token = await stack.accessTokens({ clock: later(3600 - 299) }).accessTokenFor(userId);
    const after = (await stack.storedGrant(userId))!;
    expect(token).not.toBe(before.accessToken);
    expect(after.accessToken).toBe(token);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.version).toBe(before.version + 1);
    expect((await stack.sandboxState()).grants[0]!.currentRefreshTokenSha256).toBe(sha256(after.refreshToken));
    expect(await refreshCounts()).toEqual({ requests: 1, succeeded: 1 });
  });

  it('does not refresh just outside the margin', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 3600 } });
    const { userId } = await connectedUser(stack);
    await stack.accessTokens({ clock: later(3600 - 310) }).accessTokenFor(userId);
    expect((await refreshCounts()).requests).toBe(0);
  });

  it('refreshes a short-lived token at half its lifetime', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', accessTokenTtlS: 60 } });
    const { userId } = await connectedUser(stack);
    await stack.accessTokens({ clock: later(25) }).accessTokenFor(userId);
    expect((await refreshCounts()).requests).toBe(0);
    await stack.accessTokens({ clock: later(31) }).accessTokenFor(userId);
    expect((await refreshCounts()).requests).toBe(1);
  });

  it('shares one refresh among concurrent callers of one process', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const tokens = stack.accessTokens({ clock: later(3600) });
    const results = await Promise.all(Array.from({ length: 25 }, () => tokens.accessTokenFor(userId)));
    expect(new Set(results).size).toBe(1);
    expect(await refreshCounts()).toEqual({ requests: 1, succeeded: 1 });
  });

  it('shares one refresh among processes through the Redis lock: the others read what it stored', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const processes = [1, 2, 3].map(() => stack.accessTokens({ clock: later(3600) }));
    const results = await Promise.all(processes.flatMap((tokens) => [tokens.accessTokenFor(userId), tokens.accessTokenFor(userId)]));
    expect(new Set(results).size).toBe(1);
    expect(await refreshCounts()).toEqual({ requests: 1, succeeded: 1 });
    expect((await stack.sandboxState()).counters.reuseDetections).toBe(0);
  });

  it('keeps the old refresh token when the response carries none', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', rotateRefreshTokens: false } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    const token = await stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId);
    const after = (await stack.storedGrant(userId))!;
    expect(token).not.toBe(before.accessToken);
    expect(after.refreshToken).toBe(before.refreshToken);
    await stack.accessTokens({ clock: later(7200) }).accessTokenFor(userId);
    expect(await refreshCounts()).toEqual({ requests: 2, succeeded: 2 });
  });

  it('does not carry an old refresh-token expiry over to a new refresh token that comes without one', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 86_400 } });
    const { userId } = await connectedUser(stack);
    expect((await stack.storedGrant(userId))!.refreshExpiresAt).toBeDefined();
    await stack.changeSandbox({ refreshTokenTtlS: null });
    await stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId);
    expect((await stack.storedGrant(userId))!.refreshExpiresAt).toBeUndefined();
  });

  it('records refresh_token_expires_in, and past it asks for reconnecting without calling the service', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 86_400 } });
    const { userId, client } = await connectedUser(stack);
    const grant = (await stack.storedGrant(userId))!;
    expect(grant.refreshExpiresAt!.getTime() - Date.now()).toBeGreaterThan(86_000_000);
    const error = await failure(stack.accessTokens({ clock: later(86_401) }).accessTokenFor(userId));
    expect(error.kind).toBe('needs-reconnect');
    expect((await refreshCounts()).requests).toBe(0);
    expect((await stack.storedGrant(userId))!.status).toBe('needs_reconnect');
    expect(await (await client.get('/')).text()).toContain('Needs reconnecting');
  });
});

describe('when a refresh fails', () => {
  it('leaves the tokens untouched on a 503, and succeeds once the service is back', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'], faultTargets: ['token'] });
    const tokens = stack.accessTokens({ clock: later(3600) });
    expect((await failure(tokens.accessTokenFor(userId))).kind).toBe('retryable');
    expect(await stack.storedGrant(userId)).toEqual(before);
    await stack.changeSandbox({ faultRate: 0 });
    expect(await tokens.accessTokenFor(userId)).not.toBe(before.accessToken);
    expect((await stack.storedGrant(userId))!.status).toBe('connected');
  });

  it('recovers from invalid_grant after its lease ran out (a paused process) by using the tokens stored meanwhile', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', reuseDetection: false } });
    const { userId } = await connectedUser(stack);
    // Long past the paused process's lease, whose Redis lock has run out too (here: another key prefix).
    const successor = stack.accessTokens({ clock: later(2 * 3600), redisPrefix: anotherPrefix() });
    const realOAuth = createOAuthClient(withRequestedScopes(stack.config.athlete));
    const pausedOAuth: OAuthClient = {
      ...realOAuth,
      refresh: async (refreshToken, scopes) => {
        await successor.accessTokenFor(userId);
        return realOAuth.refresh(refreshToken, scopes);
      },
    };
    const paused = stack.accessTokens({ clock: later(3600), oauth: pausedOAuth });
    const token = await paused.accessTokenFor(userId);
    expect(token).toBe((await stack.storedGrant(userId))!.accessToken);
    expect((await stack.storedGrant(userId))!.status).toBe('connected');
    expect(await refreshCounts()).toEqual({ requests: 2, succeeded: 1 });
    expect(await stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId)).toBe(token);
  });

  it('marks the connection needs_reconnect when the grant is truly revoked, and reconnecting restores it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId, client } = await connectedUser(stack);
    const stolen = (await stack.storedGrant(userId))!.refreshToken;
    expect((await stack.presentRefreshToken(stolen)).status).toBe(200);
    expect((await stack.presentRefreshToken(stolen)).status).toBe(400); // reuse: the sandbox revokes the grant
    const error = await failure(stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId));
    expect(error.kind).toBe('needs-reconnect');
    expect((await stack.storedGrant(userId))!.status).toBe('needs_reconnect');
    expect(await (await client.get('/api/me')).json()).toMatchObject({
      connection: { status: 'needs_reconnect', reason: 'grant_revoked' },
    });
    expect((await failure(stack.accessTokens().accessTokenFor(userId))).kind).toBe('needs-reconnect');

    expect((await connect(client)).status).toBe(303);
    expect((await stack.storedGrant(userId))!.status).toBe('connected');
    await expect(stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId)).resolves.toMatch(/^sbx_at_/);
  });

  it('when refresh answers are lost after the service rotated, without a grace period: needs_reconnect, no loop', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['drop'], faultTargets: ['token'] });
    const tokens = stack.accessTokens({ clock: later(3600) });
    // Both the refresh and its immediate retry are applied, their answers lost; the retry presented
    // a rotated-out token, so this strict service revoked the grant.
    expect((await failure(tokens.accessTokenFor(userId))).kind).toBe('retryable');
    const { refreshLease, ...unchanged } = (await stack.storedGrant(userId))!;
    expect(unchanged).toEqual({ ...before, refreshLease: undefined });
    // The lease is left behind, run out: the outcome is unknown.
    expect(refreshLease!.until.getTime()).toBeLessThanOrEqual(later(3600)().getTime());
    await stack.changeSandbox({ faultRate: 0 });
    expect((await failure(tokens.accessTokenFor(userId))).kind).toBe('needs-reconnect');
    expect((await failure(tokens.accessTokenFor(userId))).kind).toBe('needs-reconnect');
    const state = await stack.sandboxState();
    expect(state.counters.refreshRequests).toBe(3);
    expect(state.counters.reuseDetections).toBe(1);
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'needs_reconnect', statusReason: 'refresh_interrupted' });
  });

  it('when a refresh times out, presents the same refresh token once more at once', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', stallMs: 5000 } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['stall'], faultTargets: ['token'] });
    const impatientOAuth = createOAuthClient({ ...withRequestedScopes(stack.config.athlete), timeoutS: 0.3 });
    const presented: string[] = [];
    const oauth: OAuthClient = {
      ...impatientOAuth,
      // Only the first token request stalls: the service is back for the second.
      refresh: (refreshToken, scopes) => {
        presented.push(refreshToken);
        return impatientOAuth.refresh(refreshToken, scopes).finally(() => stack.changeSandbox({ faultRate: 0 }));
      },
    };
    const token = await stack.accessTokens({ clock: later(3600), oauth }).accessTokenFor(userId);
    expect(presented).toEqual([before.refreshToken, before.refreshToken]);
    expect((await stack.storedGrant(userId))!.accessToken).toBe(token);
    const { counters } = await stack.sandboxState();
    expect(counters.faults).toMatchObject({ stall: 1 });
    expect(counters.tokenGrants.refresh_token).toBe(1);
  });

  it('when a refresh answer is lost but the service grants a reuse grace period: recovers without reconnecting', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', reuseGraceS: 30 } });
    const { userId } = await connectedUser(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['drop'], faultTargets: ['token'] });
    const tokens = stack.accessTokens({ clock: later(3600) });
    expect((await failure(tokens.accessTokenFor(userId))).kind).toBe('retryable');
    await stack.changeSandbox({ faultRate: 0 });
    const token = await tokens.accessTokenFor(userId);
    const state = await stack.sandboxState();
    expect(state.counters.reuseDetections).toBe(0);
    expect(state.grants[0]!.status).toBe('active');
    expect(state.grants[0]!.currentRefreshTokenSha256).toBe(sha256((await stack.storedGrant(userId))!.refreshToken));
    expect((await stack.storedGrant(userId))!.accessToken).toBe(token);
  });
});

describe('the refresh lease on the connection row (docs/architecture.md, decision 5)', () => {
  it('lets one of two processes whose Redis locks do not see each other refresh; the other waits and uses what it stored', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const [one, two] = [anotherPrefix(), anotherPrefix()].map((redisPrefix) => stack.accessTokens({ clock: later(3600), redisPrefix }));
    const tokens = await Promise.all([one!.accessTokenFor(userId), two!.accessTokenFor(userId)]);
    expect(tokens[0]).toBe(tokens[1]);
    expect(await refreshCounts()).toEqual({ requests: 1, succeeded: 1 });
    expect((await stack.sandboxState()).counters.reuseDetections).toBe(0);
    expect((await stack.storedGrant(userId))!).toMatchObject({ accessToken: tokens[0], refreshLease: undefined });
  });

  /** A 401 makes a process refresh, the service applies it, and the process dies before the answer comes. */
  async function refreshKilledMidRequest(userId: number): Promise<void> {
    const rejected = (await stack.storedGrant(userId))!.accessToken;
    void stack.accessTokens({ oauth: killedMidRefresh() }).replaceRejected(userId, rejected);
    await eventually('the refresh to be applied', async () => ((await refreshCounts()).succeeded === 1 ? true : undefined));
    expect((await findConnection(stack.db, userId))!.refreshLease).toBeDefined();
  }

  it('when a refresh was interrupted and the service has no grace period: needs_reconnect saying so, logged with the user, no loop', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'warn' });
    const { userId, client } = await connectedUser(stack);
    await refreshKilledMidRequest(userId);
    // Past the killed process's lease (its Redis lock lasts until its TTL: here, another key prefix).
    const next = stack.accessTokens({ clock: later(3600), redisPrefix: anotherPrefix() });
    expect((await failure(next.accessTokenFor(userId))).kind).toBe('needs-reconnect');
    expect((await failure(next.accessTokenFor(userId))).kind).toBe('needs-reconnect');
    expect(await findConnection(stack.db, userId)).toMatchObject({
      status: 'needs_reconnect',
      statusReason: 'refresh_interrupted',
      refreshLease: undefined,
    });
    expect((await stack.sandboxState()).counters).toMatchObject({ refreshRequests: 2, reuseDetections: 1 });
    const logged = stack.logs.map((line) => JSON.parse(line) as { userId?: number; reason?: string });
    expect(logged).toContainEqual(expect.objectContaining({ userId, reason: 'refresh_interrupted' }));
    expect(await (await client.get('/')).text()).toContain('A refresh of your authorization was interrupted');
    expect(await (await client.get('/api/me')).json()).toMatchObject({
      connection: { status: 'needs_reconnect', reason: 'refresh_interrupted' },
    });
  });

  it('when a refresh was interrupted and the service grants a reuse grace period: recovers, still connected', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', reuseGraceS: 60 } });
    const { userId } = await connectedUser(stack);
    await refreshKilledMidRequest(userId);
    const token = await stack.accessTokens({ clock: later(3600), redisPrefix: anotherPrefix() }).accessTokenFor(userId);
    const stored = (await stack.storedGrant(userId))!;
    expect(stored).toMatchObject({ status: 'connected', accessToken: token, refreshLease: undefined });
    const state = await stack.sandboxState();
    expect(state.counters).toMatchObject({ refreshRequests: 2, reuseDetections: 0 });
    expect(state.grants[0]!.currentRefreshTokenSha256).toBe(sha256(stored.refreshToken));
  });

  it('recovers an interrupted refresh at once, while the stored access token is still fresh, since a grace period does not last', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', reuseGraceS: 60 } });
    const { userId } = await connectedUser(stack);
    const before = (await stack.storedGrant(userId))!;
    await refreshKilledMidRequest(userId);
    // Past the lease, and the stored access token (issued by Connect, living an hour) still fresh.
    const token = await stack.accessTokens({ clock: later(60), redisPrefix: anotherPrefix() }).accessTokenFor(userId);
    expect(token).not.toBe(before.accessToken);
    expect(await refreshCounts()).toEqual({ requests: 2, succeeded: 2 });
  });
});

describe('when the stored tokens are sealed with a key this process does not have (a newer key, or an older one dropped)', () => {
  it('leaves the connection as it is, logs and counts the key id, makes no token request, and fails retryable', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'warn' });
    const { userId } = await connectedUser(stack);
    const withoutTheKey = createTokenCipher(randomBytes(32));
    const error = await failure(stack.accessTokens({ cipher: withoutTheKey, clock: later(3600) }).accessTokenFor(userId));
    expect(error.kind).toBe('retryable');
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', statusReason: undefined });
    expect(await stack.db.selectFrom('connection_notices').selectAll().execute()).toEqual([]);
    const keyId = stack.cipher.currentKeyId;
    const logged = stack.logs.map((line) => JSON.parse(line) as { level: number; userId?: number; tokenKeyId?: string; msg: string });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 40, userId, tokenKeyId: keyId, msg: expect.stringContaining('not configured here') }),
    );
    expect(stack.logs.join('')).not.toMatch(/sbx_(at|rt)_/);
    expect(await stack.metrics.registry.metrics()).toContain(`athlete_sync_token_key_missing_total{key_id="${keyId}"} 1`);
    expect((await refreshCounts()).requests).toBe(0);
  });

  it('a process that has the key opens them afterwards: nothing was lost', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const stored = (await stack.storedGrant(userId))!;
    await failure(stack.accessTokens({ cipher: createTokenCipher(randomBytes(32)) }).accessTokenFor(userId));
    expect(await stack.accessTokens().accessTokenFor(userId)).toBe(stored.accessToken);
  });
});

describe('the dashboard says why reconnecting is needed', () => {
  it('when the service refused the grant', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId, client } = await connectedUser(stack);
    const stolen = (await stack.storedGrant(userId))!.refreshToken;
    await stack.presentRefreshToken(stolen);
    await stack.presentRefreshToken(stolen); // reuse: the sandbox revokes the grant
    await failure(stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId));
    expect((await findConnection(stack.db, userId))!.statusReason).toBe('grant_revoked');
    expect(await (await client.get('/')).text()).toContain('it was withdrawn or has ended');
  });

  it('when the refresh token expired', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', refreshTokenTtlS: 86_400 } });
    const { userId, client } = await connectedUser(stack);
    await failure(stack.accessTokens({ clock: later(86_401) }).accessTokenFor(userId));
    expect((await findConnection(stack.db, userId))!.statusReason).toBe('refresh_token_expired');
    expect(await (await client.get('/')).text()).toContain('permission for this app has run out');
  });
});

describe('replaceRejected (after a 401)', () => {
  it('refreshes once even though the token is not near expiry', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const tokens = stack.accessTokens();
    const rejected = await tokens.accessTokenFor(userId);
    const replacement = await tokens.replaceRejected(userId, rejected);
    expect(replacement).not.toBe(rejected);
    expect(await tokens.replaceRejected(userId, rejected)).toBe(replacement);
    expect((await refreshCounts()).requests).toBe(1);
  });

  it('refreshes again when the token stored since the rejected one is itself due, rather than hand that one out', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const rejected = await stack.accessTokens().accessTokenFor(userId);
    const storedSince = await stack.accessTokens().replaceRejected(userId, rejected);
    // The caller's answer came an hour late: the token stored meanwhile has expired too.
    const replacement = await stack.accessTokens({ clock: later(3600) }).replaceRejected(userId, rejected);
    expect([rejected, storedSince]).not.toContain(replacement);
    expect((await refreshCounts()).requests).toBe(2);
  });
});

describe('when the stored tokens do not open with their key (damaged, or copied from another user’s row)', () => {
  it('marks the connection needs_reconnect with that reason, makes no token request, and tells the person', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId, client } = await connectedUser(stack);
    const other = await connectedUser(stack);
    const copied = await stack.db.selectFrom('connections').selectAll().where('user_id', '=', other.userId).executeTakeFirstOrThrow();
    await stack.db
      .updateTable('connections')
      .set({ access_token_sealed: copied.access_token_sealed, refresh_token_sealed: copied.refresh_token_sealed })
      .where('user_id', '=', userId)
      .execute();

    const error = await failure(stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId));
    expect(error.kind).toBe('needs-reconnect');
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'needs_reconnect', statusReason: 'tokens_damaged' });
    expect((await refreshCounts()).requests).toBe(0);
    expect(await (await client.get('/')).text()).toContain('This app can no longer read your stored authorization');
  });
});
