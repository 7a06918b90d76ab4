import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { createRedisConnection } from '../../src/redis/redis.js';
import { FORM_TOKEN_COOKIE } from '../../src/web/csrf.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type CookieClient, type Me } from '../helpers/http-client.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const password = 'a long password';
const MINUTE_S = 60;
const DAY_MS = 24 * 3600 * 1000;

/** The Set-Cookie of the session cookie in a response. */
function sessionSetCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`));
  if (cookie === undefined) throw new Error('the response sets no session cookie');
  return cookie;
}

/** Seconds until the session cookie set by `response` expires. */
function cookieLifetimeS(response: Response): number {
  const expires = /;\s*Expires=([^;]+)/i.exec(sessionSetCookie(response))?.[1];
  return (Date.parse(expires ?? '') - Date.now()) / 1000;
}

/** The Redis key of the client's session: its cookie is `s:<session id>.<signature>`. */
function sessionKey(client: CookieClient): string {
  const value = decodeURIComponent(client.cookie(SESSION_COOKIE) ?? '');
  return `${stack.config.redis.prefix}:session:${value.slice('s:'.length, value.lastIndexOf('.'))}`;
}

async function withRedis<T>(use: (redis: ReturnType<typeof createRedisConnection>) => Promise<T>): Promise<T> {
  const redis = createRedisConnection(stack.config.redis.target);
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

function sessionTtlS(client: CookieClient): Promise<number> {
  return withRedis((redis) => redis.ttl(sessionKey(client)));
}

/** Lifetimes are set at request time and HTTP dates have whole seconds: a few seconds of slack. */
function expectAbout(actualS: number, expectedS: number): void {
  expect(Math.abs(actualS - expectedS)).toBeLessThan(5);
}

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax and not Secure over plain http', async () => {
    stack = await startStack();
    const response = await stack.browser().postJson('/api/signup', { email: 'c@example.com', password, timezone: 'UTC' });
    const cookie = sessionSetCookie(response);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/; Secure/i);
  });

  it('is Secure when APP_BASE_URL is https (behind a TLS-terminating proxy)', async () => {
    stack = await startStack({ env: { APP_BASE_URL: 'https://sync.example.com' } });
    const response = await fetch(`${stack.appUrl}/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ email: 's@example.com', password, timezone: 'UTC' }),
    });
    expect(response.status).toBe(201);
    const cookie = sessionSetCookie(response);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
  });

  it('gets a new id at sign-in, also in a browser that had a session (no session fixation)', async () => {
    stack = await startStack();
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const before = client.cookie(SESSION_COOKIE);
    expect(before).toBeDefined();
    const loginPage = await (await client.get('/login')).text();
    const login = await client.postForm('/login', { email, password, _csrf: hiddenField(loginPage, '_csrf') });
    expect(login.status).toBe(303);
    expect(client.cookie(SESSION_COOKIE)).toBeDefined();
    expect(client.cookie(SESSION_COOKIE)).not.toBe(before);
  });

  it('gets a new id at the end of Connect', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const client = stack.browser();
    await signUpNewUser(client);
    const before = client.cookie(SESSION_COOKIE);
    await connect(client);
    expect(client.cookie(SESSION_COOKIE)).not.toBe(before);
    expect((await client.get('/api/me')).status).toBe(200);
  });

  it('is destroyed at sign-out: the old cookie no longer signs anyone in', async () => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const stolen = client.cookie(SESSION_COOKIE)!;
    const dashboard = await (await client.get('/')).text();
    await client.postForm('/logout', { _csrf: hiddenField(dashboard, '_csrf') });
    const replay = await fetch(`${stack.appUrl}/api/me`, { headers: { cookie: `${SESSION_COOKIE}=${stolen}` } });
    expect(replay.status).toBe(401);
  });

  it.each([
    [
      'the page',
      async (client: CookieClient) => {
        const dashboard = await (await client.get('/')).text();
        return client.postForm('/logout', { _csrf: hiddenField(dashboard, '_csrf') });
      },
    ],
    ['the API', (client: CookieClient) => client.postJson('/api/logout', {})],
  ])('is expired in the browser at sign-out through %s, with the path and attributes it was set with', async (_way, signOut) => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const cleared = sessionSetCookie(await signOut(client));
    expect(cleared).toMatch(/; Expires=Thu, 01 Jan 1970 00:00:00 GMT/i);
    expect(cleared).toMatch(/; Path=\//i);
    expect(cleared).toMatch(/; HttpOnly/i);
    expect(cleared).toMatch(/; SameSite=Lax/i);
    expect(client.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it.each([
    ['no body and no content type', {}],
    ['an empty form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a text body', { 'content-type': 'text/plain' }, 'bye'],
  ])('is ended by POST /api/logout with %s: it reads no body, so its type does not matter', async (_what, headers, body?: string) => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const signOut = await client.request('/api/logout', { method: 'POST', headers, body: body ?? '' });
    expect(signOut.status).toBe(204);
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it('is expired as Secure at sign-out when APP_BASE_URL is https', async () => {
    stack = await startStack({ env: { APP_BASE_URL: 'https://sync.example.com' } });
    const overHttps = { 'content-type': 'application/json', 'x-forwarded-proto': 'https' };
    const signUp = await fetch(`${stack.appUrl}/api/signup`, {
      method: 'POST',
      headers: overHttps,
      body: JSON.stringify({ email: 'out@example.com', password, timezone: 'UTC' }),
    });
    const sessionCookie = sessionSetCookie(signUp).split(';')[0]!;
    const signOut = await fetch(`${stack.appUrl}/api/logout`, { method: 'POST', headers: { ...overHttps, cookie: sessionCookie } });
    expect(signOut.status).toBe(204);
    expect(sessionSetCookie(signOut)).toMatch(/; Expires=Thu, 01 Jan 1970 .*; Secure/i);
  });
});

describe('session lifetimes', () => {
  it('store nothing for a signed-out visitor: page views, the sign-in and sign-up forms included, make no session', async () => {
    stack = await startStack();
    const sessionKeys = () => withRedis((redis) => redis.keys(`${stack.config.redis.prefix}:session:*`));
    const before = await sessionKeys();
    const client = stack.browser();
    for (const path of ['/login', '/signup', '/', ...KINDS.map((kind) => kind.page.path), '/no-such-page', '/login', '/signup']) {
      const response = await client.get(path);
      expect(response.headers.getSetCookie().filter((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))).toEqual([]);
    }
    expect(await sessionKeys()).toEqual(before);
  });

  it('keep a signed-in session for SESSION_IDLE_MINUTES past its last request, in Redis and in the cookie', async () => {
    let now = Date.now();
    stack = await startStack({ env: { SESSION_IDLE_MINUTES: '90' }, clock: () => new Date(now) });
    const client = stack.browser();
    const signUp = await client.postJson('/api/signup', { email: 'idle@example.com', password, timezone: 'UTC' });
    expectAbout(cookieLifetimeS(signUp), 90 * MINUTE_S);
    expectAbout(await sessionTtlS(client), 90 * MINUTE_S);

    await withRedis((redis) => redis.expire(sessionKey(client), 2 * MINUTE_S));
    now += MINUTE_S * 1000;
    const later = await client.get('/api/me');
    expect(later.status).toBe(200);
    expectAbout(cookieLifetimeS(later), 90 * MINUTE_S);
    expectAbout(await sessionTtlS(client), 90 * MINUTE_S);
  });

  it('reset its expiry in Redis at most once a minute, the cookie at every request', async () => {
    let now = Date.now();
    stack = await startStack({ env: { SESSION_IDLE_MINUTES: '90' }, clock: () => new Date(now) });
    const client = stack.browser();
    await client.postJson('/api/signup', { email: 'touch@example.com', password, timezone: 'UTC' });
    await withRedis((redis) => redis.expire(sessionKey(client), 10 * MINUTE_S));

    now += 59_000;
    const soon = await client.get('/api/me');
    expect(soon.status).toBe(200);
    expectAbout(cookieLifetimeS(soon), 90 * MINUTE_S);
    expectAbout(await sessionTtlS(client), 10 * MINUTE_S);

    now += 1_000;
    expect((await client.get('/api/me')).status).toBe(200);
    expectAbout(await sessionTtlS(client), 90 * MINUTE_S);
  });

  it.each([
    [
      'a page sends them to sign in',
      '/',
      (response: Response) => {
        expect(response.status).toBe(303);
        expect(response.headers.get('location')).toBe('/login');
      },
    ],
    ['the API answers 401', '/api/me', (response: Response) => expect(response.status).toBe(401)],
  ])('end a sign-in SESSION_MAX_DAYS after it began, however active: %s', async (_case, path, expectSignedOut) => {
    let now = Date.now();
    stack = await startStack({ env: { SESSION_MAX_DAYS: '2' }, clock: () => new Date(now) });
    const client = stack.browser();
    await signUpNewUser(client);
    now += 2 * DAY_MS - 60_000;
    expect((await client.get('/api/me')).status).toBe(200);
    const signedIn = sessionKey(client);

    now += 60_000;
    expectSignedOut(await client.get(path));
    expect(await withRedis((redis) => redis.exists(signedIn))).toBe(0);
  });

  it('still end a sign-in SESSION_MAX_DAYS after it began when Connect renewed the session id', async () => {
    let now = Date.now();
    stack = await startStack({ env: { SESSION_MAX_DAYS: '2' }, sandbox: { autoApprove: 'Ana' }, clock: () => new Date(now) });
    const client = stack.browser();
    await signUpNewUser(client);
    now += 2 * DAY_MS - 60_000;
    expect((await connect(client)).status).toBe(303);

    now += 60_000;
    expect((await client.get('/api/me')).status).toBe(401);
  });
});

describe('a Redis outage', () => {
  it('gets a page request a prompt error instead of holding it until Redis is back', async () => {
    const redis = await DisposableRedis.start();
    onTestFinished(() => redis.stop());
    stack = await startStack({ env: { REDIS_URL: redis.url } });
    const client = stack.browser();
    await signUpNewUser(client);

    // Back whatever the answer, so that the stack can close.
    const restoreRedis = async () => {
      await redis.start();
      await eventually('the app to reach Redis again', () =>
        stack.syncQueues.fresh.count().then(
          () => true,
          () => undefined,
        ),
      );
    };

    await redis.stop();
    const page = await client.request('/', { signal: AbortSignal.timeout(5_000) }).finally(restoreRedis);
    expect(page.ok).toBe(false);
  });
});

describe('HTML forms', () => {
  it('sign in with the token their page gave a signed-out visitor, whose browser holds it in a cookie, not a session', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    const loginPage = await client.get('/login');
    expect(client.cookie(FORM_TOKEN_COOKIE)).toBeDefined();
    expect(client.cookie(SESSION_COOKIE)).toBeUndefined();
    const login = await client.postForm('/login', { email, password, _csrf: hiddenField(await loginPage.text(), '_csrf') });
    expect(login.status).toBe(303);
    expect((await client.get('/api/me')).status).toBe(200);
  });

  it("refuse a sign-in carrying another browser's form token", async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const attacker = stack.browser();
    const attackersToken = hiddenField(await (await attacker.get('/login')).text(), '_csrf');
    const victim = stack.browser();
    await victim.get('/login');
    const response = await victim.postForm('/login', { email, password, _csrf: attackersToken });
    expect(response.status).toBe(403);
    expect(victim.cookie(SESSION_COOKIE)).toBeUndefined();
  });

  it('refuse a form token the app did not sign, even sent in the cookie and the form alike', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const forged = `${'0'.repeat(64)}.${'1'.repeat(64)}`;
    const response = await fetch(`${stack.appUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${FORM_TOKEN_COOKIE}=${forged}` },
      body: new URLSearchParams({ email, password, _csrf: forged }),
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
  });

  it('refuse a post without the CSRF token', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    await client.get('/login');
    const response = await client.postForm('/login', { email, password });
    expect(response.status).toBe(403);
  });

  it("answer a signed-in person's post without its token with an error page whose sign-out form works", async () => {
    stack = await startStack();
    const client = stack.browser();
    // Signed up through the JSON API: no page has given this session a form token yet.
    await signUpNewUser(client);
    const refused = await client.postForm('/settings/timezone', { timezone: 'UTC' });
    expect(refused.status).toBe(403);
    const signOut = await client.postForm('/logout', { _csrf: hiddenField(await refused.text(), '_csrf') });
    expect(signOut.status).toBe(303);
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it('keep the token of the pages already open when a post without it is refused', async () => {
    stack = await startStack();
    const client = stack.browser();
    await signUpNewUser(client);
    const token = hiddenField(await (await client.get('/')).text(), '_csrf');
    const refused = await client.postForm('/settings/timezone', { timezone: 'UTC' });
    expect(hiddenField(await refused.text(), '_csrf')).toBe(token);
    expect((await client.postForm('/settings/timezone', { timezone: 'UTC', _csrf: token })).status).toBe(303);
  });

  it('sign up, then show the dashboard with the time zone, which can be changed and is validated', async () => {
    stack = await startStack();
    const client = stack.browser();
    const signupPage = await (await client.get('/signup')).text();
    const signup = await client.postForm('/signup', {
      email: 'form@example.com',
      password,
      timezone: 'America/St_Johns',
      _csrf: hiddenField(signupPage, '_csrf'),
    });
    expect(signup.headers.get('location')).toBe('/');
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('America/St_Johns');
    expect(dashboard).toContain('Not connected');
    const csrf = hiddenField(dashboard, '_csrf');
    const invalid = await client.postForm('/settings/timezone', { timezone: 'Nowhere/Land', _csrf: csrf });
    expect(invalid.status).toBe(303);
    expect(await (await client.get(invalid.headers.get('location')!)).text()).toContain(
      'Time zone must be one from the list, such as Europe/Berlin.',
    );
    await client.postForm('/settings/timezone', { timezone: 'Pacific/Chatham', _csrf: csrf });
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('Pacific/Chatham');
  });
});
