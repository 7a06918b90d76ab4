import { withRequestedScopes } from '../../src/connections/capabilities.js';
import { readFileSync, existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SYNCED_KINDS } from '../../src/kinds.js';
import type { SyncedKind } from '../../src/kinds/kind.js';
import { testDatabaseKind } from '../helpers/database.js';
import { PENDING_CONNECT_TTL_MS } from '../../src/connections/pending-connects.js';
import { connect, connectedUser, signUpNewUser, startConnect } from '../helpers/flows.js';
import { bodyOf, type CookieClient, type Me } from '../helpers/http-client.js';
import { sessionKeyOf } from '../helpers/sessions.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

async function tokenRequests(): Promise<number> {
  const counts = (await stack.sandboxState()).counters.requests['POST /api/oauth/token'] ?? {};
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

async function me(client: CookieClient): Promise<Me> {
  return bodyOf<Me>(await client.get('/api/me'));
}

/** Starts Connect and comes back as a person who pressed Deny would (RFC 6749 §4.1.2.1). */
async function deny(client: CookieClient, extra: Record<string, string> = {}): Promise<Response> {
  const state = new URL((await client.get('/connect')).headers.get('location')!).searchParams.get('state')!;
  return client.get(`/oauth/callback?${new URLSearchParams({ error: 'access_denied', state, ...extra })}`);
}

/** What a Connect result page says is still true of the connection, and its button to try again. */
function standingOn(page: string): { standing: string | undefined; tryAgain: string | undefined } {
  return {
    standing: /data-testid="connection-standing"><strong>([^<]*)</.exec(page)?.[1],
    tryAgain: /<a class="button" href="\/connect">([^<]*)</.exec(page)?.[1],
  };
}

const NOT_CONNECTED = { standing: 'You are not connected.', tryAgain: 'Connect' };
const STILL_CONNECTED = { standing: 'You are still connected with your earlier approval.', tryAgain: 'Reconnect' };

/** Two registered kinds: the service withholds the first's scope and grants the second's. */
const [WITHHELD_KIND, GRANTED_KIND] = SYNCED_KINDS as [SyncedKind, SyncedKind];
const TWO_SCOPES = `${WITHHELD_KIND.scope} ${GRANTED_KIND.scope}`;

describe('Connect', () => {
  it('sends the browser to the authorize endpoint with every parameter of section 4.1', async () => {
    stack = await startStack({ env: { ATHLETE_SCOPES: TWO_SCOPES } });
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await client.get('/connect');
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${stack.sandboxUrl}/api/oauth/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'athlete-sync-demo',
      redirect_uri: `${stack.appUrl}/oauth/callback`,
      scope: TWO_SCOPES,
      state: expect.stringMatching(/.{20,}/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });

  it('asks a signed-out person to sign in first', async () => {
    stack = await startStack();
    const response = await stack.browser().get('/connect');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2Fconnect');
  });

  it('stores the connection and shows it on the dashboard', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await connect(client);
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe('/');
    expect((await me(client)).connection).toEqual({
      status: 'connected',
      scopes: withRequestedScopes({}).scopes,
    });
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('Connected');
    expect((await stack.sandboxState()).grants).toHaveLength(1);
  });

  it('keeps the granted scopes when the service grants fewer than asked, and shows what is off', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana', withheldScopes: [WITHHELD_KIND.scope] } });
    const client = stack.browser();
    await signUpNewUser(client);
    await connect(client);
    expect((await me(client)).connection?.scopes).toEqual(withRequestedScopes({}).scopes.filter((scope) => scope !== WITHHELD_KIND.scope));
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toMatch(new RegExp(`data-capability="${WITHHELD_KIND.name}">[\\s\\S]*?class="off">Off`));
    expect(dashboard).toMatch(new RegExp(`data-capability="${GRANTED_KIND.name}">[\\s\\S]*?class="on">On`));
  });
});

describe('the OAuth callback', () => {
  it('refuses a callback without state', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    callback.searchParams.delete('state');
    expect((await client.get(callback.href)).status).toBe(400);
    expect(await tokenRequests()).toBe(0);
  });

  it('refuses a tampered state without calling the token endpoint', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const response = await client.get(callback.href);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('no longer valid');
    expect(await tokenRequests()).toBe(0);
    expect((await me(client)).connection).toBeNull();
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'refuses the state %s, a name every object inherits, without calling the token endpoint',
    async (state) => {
      stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
      const client = stack.browser();
      await signUpNewUser(client);
      await startConnect(client);
      const response = await client.get(`/oauth/callback?${new URLSearchParams({ state, code: 'X' })}`);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('no longer valid');
      expect(await tokenRequests()).toBe(0);
      expect((await me(client)).connection).toBeNull();
    },
  );

  it("refuses another session's state: a callback is bound to the browser that started it", async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const victim = stack.browser();
    const attacker = stack.browser();
    await signUpNewUser(victim);
    await signUpNewUser(attacker);
    const attackersCallback = await startConnect(attacker);
    expect((await victim.get(attackersCallback.href)).status).toBe(400);
    expect(await tokenRequests()).toBe(0);
    expect((await me(victim)).connection).toBeNull();
  });

  it('refuses a repeated query key', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    callback.searchParams.append('code', 'second');
    expect((await client.get(callback.href)).status).toBe(400);
    expect(await tokenRequests()).toBe(0);
  });

  it("completes with the service's own iss (RFC 9207), and without one, which the document does not promise", async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const withIss = stack.browser();
    await signUpNewUser(withIss);
    const callback = await startConnect(withIss);
    expect(callback.searchParams.get('iss')).toBe(stack.sandboxUrl);
    expect((await withIss.get(callback.href)).status).toBe(303);

    const withoutIss = stack.browser();
    await signUpNewUser(withoutIss);
    const bare = await startConnect(withoutIss);
    bare.searchParams.delete('iss');
    expect((await withoutIss.get(bare.href)).status).toBe(303);
    expect(await tokenRequests()).toBe(2);
  });

  it('refuses a callback from another issuer (an RFC 9207 mix-up) without calling the token endpoint', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    expect(callback.searchParams.get('iss')).toBe(stack.sandboxUrl);
    callback.searchParams.set('iss', 'https://attacker.example');
    const response = await client.get(callback.href);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not valid');
    expect(await tokenRequests()).toBe(0);
    expect((await me(client)).connection).toBeNull();
  });

  it('refuses an error answer from another issuer too', async () => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await deny(client, { iss: 'https://attacker.example' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not valid');
  });

  it('makes no second token request when a callback is replayed after success', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    expect((await client.get(callback.href)).status).toBe(303);
    const replay = await client.get(callback.href);
    expect(replay.status).toBe(400);
    expect(await tokenRequests()).toBe(1);
    expect((await stack.sandboxState()).grants.filter((grant) => grant.status === 'active')).toHaveLength(1);
  });

  it('leaves no connection when the code exchange fails', async () => {
    stack = await startStack({
      sandbox: { autoApprove: 'Ana', faultRate: 1, faultKinds: ['503'], faultTargets: ['token'] },
    });
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await connect(client);
    expect(response.status).toBe(502);
    expect(await response.text()).toContain('Nothing was saved');
    expect(await tokenRequests()).toBe(1);
    expect((await me(client)).connection).toBeNull();
    expect(await stack.db.selectFrom('connections').selectAll().execute()).toEqual([]);
  });

  it('tells the person in plain words when the code exchange times out, and logs the detail', async () => {
    stack = await startStack({
      sandbox: { autoApprove: 'Ana', faultRate: 1, faultKinds: ['stall'], faultTargets: ['token'], stallMs: 5000 },
      env: { ATHLETE_TIMEOUT_S: '0.3' },
      captureLogs: 'warn',
    });
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await connect(client);
    expect(response.status).toBe(502);
    const page = await response.text();
    expect(page).toContain('Nothing was saved');
    expect(page).not.toContain('The service said');
    expect(page).not.toMatch(/Error|timed out/);
    expect(stack.logs.join('')).toMatch(/code exchange failed.*TimeoutError|TimeoutError.*code exchange failed/);
  });

  it('shows the service message when the code is refused, and saves nothing', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    callback.searchParams.set('code', 'sbx_code_forged');
    const response = await client.get(callback.href);
    expect(response.status).toBe(502);
    expect(await response.text()).toContain('invalid_grant');
    expect((await me(client)).connection).toBeNull();
  });

  it('shows a friendly page when the person denies access', async () => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const response = await deny(client);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('You chose not to connect');
    expect(page).toContain('Nothing was shared with this app.');
    expect(standingOn(page)).toEqual(NOT_CONNECTED);
  });

  it('says the earlier approval still holds when the person denies a Reconnect', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack);
    const page = await (await deny(client)).text();
    expect(page).toContain('You chose not to reconnect');
    expect(page).not.toContain('Nothing was shared');
    expect(standingOn(page)).toEqual(STILL_CONNECTED);
    expect((await me(client)).connection?.status).toBe('connected');
  });

  it('says a replayed callback was not used, and that the connection it made still stands', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    await client.get(callback.href);
    const page = await (await client.get(callback.href)).text();
    expect(page).toContain('This connection attempt is no longer valid');
    expect(standingOn(page)).toEqual(STILL_CONNECTED);
  });

  it('says in plain words that an attempt expired, without calling the token endpoint', async () => {
    let offsetMs = 0;
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, clock: () => new Date(Date.now() + offsetMs) });
    const client = stack.browser();
    await signUpNewUser(client);
    const callback = await startConnect(client);
    offsetMs = PENDING_CONNECT_TTL_MS;
    const response = await client.get(callback.href);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('This connection attempt expired');
    expect(page).toContain('Connecting must be finished within 10 minutes of starting it');
    expect(standingOn(page)).toEqual(NOT_CONNECTED);
    expect(page).toContain('href="/">Back to your dashboard</a>');
    expect(await tokenRequests()).toBe(0);
  });

  it('says a Reconnect that expired left the earlier approval in place', async () => {
    let offsetMs = 0;
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, clock: () => new Date(Date.now() + offsetMs) });
    const { client } = await connectedUser(stack);
    const callback = await startConnect(client);
    offsetMs = PENDING_CONNECT_TTL_MS;
    const page = await (await client.get(callback.href)).text();
    expect(page).toContain('This connection attempt expired');
    expect(standingOn(page)).toEqual(STILL_CONNECTED);
  });

  // Sealing happens before the database sees a token, so one database's files show it for both.
  it.runIf(testDatabaseKind() === 'sqlite')('stores no token in clear text: the SQLite files hold none of the sandbox tokens', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    if (stack.database.kind !== 'sqlite') throw new Error('a SQLite test');
    const client = stack.browser();
    await signUpNewUser(client);
    await connect(client);
    const { path } = stack.database;
    const files = [path, `${path}-wal`].filter(existsSync);
    const bytes = Buffer.concat(files.map((file) => readFileSync(file)));
    expect(bytes.length).toBeGreaterThan(0);
    expect(await stack.db.selectFrom('connections').select('user_id').execute()).toHaveLength(1);
    // The sandbox issues recognisable tokens: sbx_at_…, sbx_rt_….
    expect(bytes.includes('sbx_at_')).toBe(false);
    expect(bytes.includes('sbx_rt_')).toBe(false);
  });
});

describe('Connecting too often', () => {
  /** A Connect looped by a client with a made-up code: the service is asked for a token, and refuses. */
  async function connectWithMadeUpCode(client: CookieClient): Promise<void> {
    const callback = await startConnect(client);
    callback.searchParams.set('code', 'made-up-code');
    expect((await client.get(callback.href)).status).toBe(502);
  }

  /** The states of the Connects the client's session holds, waiting for the service's answer. */
  async function pendingStates(client: CookieClient): Promise<string[]> {
    const session = JSON.parse((await stack.redis.get(sessionKeyOf(stack, client)))!) as {
      pendingConnects?: Record<string, unknown>;
    };
    return Object.keys(session.pendingConnects ?? {});
  }

  it('past CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR, answers 429 with Retry-After, sends the browser nowhere and keeps no attempt', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR: '2' } });
    const client = stack.browser();
    await signUpNewUser(client);
    await connectWithMadeUpCode(client);
    // The second, approved at the service, its callback not yet opened: the session keeps it.
    await startConnect(client);
    const waiting = await pendingStates(client);

    for (let i = 0; i < 3; i++) {
      const refused = await client.get('/connect');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('location')).toBeNull();
      const retryAfterS = Number(refused.headers.get('retry-after'));
      expect(retryAfterS).toBeGreaterThan(0);
      expect(retryAfterS).toBeLessThanOrEqual(3600);
      const page = await refused.text();
      expect(page).toContain('Too many connection attempts');
      expect(page).toMatch(/Too many attempts\. Please try again in \d+ minutes?\. Nothing was changed\./);
      expect(standingOn(page)).toEqual(NOT_CONNECTED);
    }

    expect(await pendingStates(client)).toEqual(waiting);
    expect(await tokenRequests()).toBe(1);
  });

  it('counts a Connect that succeeded too, and leaves the connection it made as it was', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR: '2' } });
    const { client } = await connectedUser(stack);
    await connectWithMadeUpCode(client);

    const refused = await client.get('/connect');

    expect(refused.status).toBe(429);
    expect(standingOn(await refused.text())).toEqual(STILL_CONNECTED);
    expect((await me(client)).connection?.status).toBe('connected');
    expect(await tokenRequests()).toBe(2);
  });

  it('counts each account on its own: another person connects while one is refused', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR: '2' } });
    const looping = stack.browser();
    await signUpNewUser(looping);
    await connectWithMadeUpCode(looping);
    await connectWithMadeUpCode(looping);
    expect((await looping.get('/connect')).status).toBe(429);

    const other = stack.browser();
    await signUpNewUser(other);
    expect((await connect(other)).status).toBe(303);
    expect((await me(other)).connection?.status).toBe('connected');
  });
});

describe('Disconnect', () => {
  it('deletes the stored tokens after a form post with the CSRF token', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    await connect(client);
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('revoke');
    const csrf = dashboard.match(/name="_csrf" value="([^"]+)"/)![1]!;
    const refused = await client.postForm('/disconnect', {});
    expect(refused.status).toBe(403);
    const response = await client.postForm('/disconnect', { _csrf: csrf });
    expect(response.headers.get('location')).toBe('/');
    expect(await (await client.get('/')).text()).toContain('Disconnected. This app no longer holds access');
    expect((await me(client)).connection).toBeNull();
    expect(await stack.db.selectFrom('connections').selectAll().execute()).toEqual([]);
  });
});
