import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type Me } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const password = 'a long password';

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax and not Secure over plain http', async () => {
    stack = await startStack();
    const response = await stack.browser().postJson('/api/signup', { email: 'c@example.com', password, timezone: 'UTC' });
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`))!;
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
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
  });

  it('gets a new id at sign-in (no session fixation)', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    const loginPage = await (await client.get('/login')).text();
    const before = client.cookie(SESSION_COOKIE);
    expect(before).toBeDefined();
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
});

describe('HTML forms', () => {
  it('refuse a post without the CSRF token', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    await client.get('/login');
    const response = await client.postForm('/login', { email, password });
    expect(response.status).toBe(403);
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
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('IANA time zone');
    await client.postForm('/settings/timezone', { timezone: 'Pacific/Chatham', _csrf: csrf });
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('Pacific/Chatham');
  });
});
