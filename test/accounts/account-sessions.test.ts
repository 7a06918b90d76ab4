import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { PASSWORD, signedInAgain } from '../helpers/account.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type ApiError } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const NEW_PASSWORD = 'another long password';

describe('POST /api/account/password', () => {
  it('changes the password (204): every other session ends, this one continues under a new session id', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const laptop = await signedInAgain(client, email);
    const phone = await signedInAgain(client, email);
    const before = client.cookie(SESSION_COOKIE);

    const changed = await client.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });

    expect(changed.status).toBe(204);
    expect(client.cookie(SESSION_COOKIE)).not.toBe(before);
    expect((await client.get('/api/me')).status).toBe(200);
    expect((await laptop.get('/api/me')).status).toBe(401);
    expect((await phone.get('/api/me')).status).toBe(401);
    expect((await stack.browser().postJson('/api/login', { email, password: PASSWORD })).status).toBe(401);
    expect((await stack.browser().postJson('/api/login', { email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('refuses a wrong current password (403), changes nothing, and counts it like a failed sign-in (429 after five)', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const other = await signedInAgain(client, email);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      const refused = await client.postJson('/api/account/password', { current_password: `guess ${attempt}`, new_password: NEW_PASSWORD });
      statuses.push(refused.status);
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429]);
    // The sign-in limit is the same count: signing in from this address is refused too, even rightly.
    expect((await stack.browser().postJson('/api/login', { email, password: PASSWORD })).status).toBe(429);
    expect((await other.get('/api/me')).status).toBe(200);
    const changedAfterAll = await client.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(changedAfterAll.status).toBe(429);
  });

  it.each([
    ['an empty body', {}, ['current_password', 'new_password']],
    ['a short new password', { current_password: PASSWORD, new_password: 'short' }, ['new_password']],
    ['a number', { current_password: 12, new_password: NEW_PASSWORD }, ['current_password']],
    ['5,000 characters', { current_password: 'x'.repeat(5000), new_password: NEW_PASSWORD }, ['current_password']],
    ['an unknown field', { current_password: PASSWORD, new_password: NEW_PASSWORD, role: 'admin' }, ['role']],
    ['an array', [PASSWORD, NEW_PASSWORD], ['body']],
  ])('answers 400 naming the field for %s, and changes nothing', async (_case, body, fields) => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const refused = await client.postJson('/api/account/password', body);
    expect(refused.status).toBe(400);
    expect((await bodyOf<ApiError>(refused)).fields).toEqual(fields);
    expect((await stack.browser().postJson('/api/login', { email, password: PASSWORD })).status).toBe(200);
  });

  it('answers 401 signed out, and 415 to a body that is not JSON', async () => {
    expect(
      (await stack.browser().postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status,
    ).toBe(401);
    const client = stack.browser();
    await signUpNewUser(client);
    const form = await client.postForm('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(form.status).toBe(415);
  });

  it('the account page: the form changes it and signs out the other sessions', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const other = await signedInAgain(client, email);
    const page = await (await client.get('/account')).text();
    const _csrf = hiddenField(page, '_csrf');

    const wrong = await client.postForm('/account/password', { _csrf, current_password: 'not it', new_password: NEW_PASSWORD });
    expect(wrong.status).toBe(303);
    expect(await (await client.get(wrong.headers.get('location')!)).text()).toContain(
      'Your password was not changed: That is not your current password.',
    );
    const short = await client.postForm('/account/password', { _csrf, current_password: PASSWORD, new_password: 'short' });
    const refusal = await (await client.get(short.headers.get('location')!)).text();
    expect(refusal).toContain('Your password was not changed: New password must be at least 10 characters.');
    expect(refusal).toContain(
      '<span class="field-problem" id="account-new_password-problem">New password must be at least 10 characters.</span>',
    );
    expect(await (await client.get('/account')).text()).not.toContain('was not changed');

    const changed = await client.postForm('/account/password', { _csrf, current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    expect(await (await client.get(changed.headers.get('location')!)).text()).toContain('Password changed.');
    expect(await (await client.get('/account')).text()).not.toContain('Password changed.');
    expect((await other.get('/api/me')).status).toBe(401);
  });

  it('tells the person signed in elsewhere, on the sign-in page, that a password change signed them out', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const other = await signedInAgain(client, email);
    expect((await client.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(204);

    const leadsToSignIn = await other.get('/account');
    expect(leadsToSignIn.status).toBe(303);
    const signIn = await (await other.get(leadsToSignIn.headers.get('location')!)).text();
    expect(signIn).toContain('You were signed out because your password was changed on another browser or device.');
    expect(await (await other.get('/login')).text()).not.toContain('You were signed out');
  });
});

describe('signing out everywhere', () => {
  it("POST /api/account/logout-everywhere ends every session of the person, this one too, and no one else's", async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const others = [await signedInAgain(client, email), await signedInAgain(client, email)];
    const someoneElse = stack.browser();
    await signUpNewUser(someoneElse);

    expect((await client.postJson('/api/account/logout-everywhere', {})).status).toBe(204);

    for (const session of [client, ...others]) expect((await session.get('/api/me')).status).toBe(401);
    expect((await someoneElse.get('/api/me')).status).toBe(200);
    const setKey = (await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    expect(await userSessionIds(setKey)).toEqual([]);
  });

  it('takes a POST without a body, as fetch sends it (Content-Length: 0, no Content-Type)', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await client.request('/api/account/logout-everywhere', { method: 'POST' })).status).toBe(204);
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it("the account page's button, which sends the person to sign in", async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const other = await signedInAgain(client, email);
    const _csrf = hiddenField(await (await client.get('/account')).text(), '_csrf');
    const signedOut = await client.postForm('/account/sign-out-everywhere', { _csrf });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe('/login');
    expect(await (await client.get('/login')).text()).toContain('You are signed out everywhere');
    expect(await (await client.get('/login')).text()).not.toContain('You are signed out everywhere');
    expect((await client.get('/api/me')).status).toBe(401);
    expect((await other.get('/api/me')).status).toBe(401);
    expect(await (await other.get('/login')).text()).toContain('You were signed out because “Sign out everywhere” was chosen');
  });

  it('ends the sessions started on the sign-up and sign-in pages too', async () => {
    const email = `pages-${Date.now()}@example.com`;
    const signedUp = stack.browser();
    const signUpForm = hiddenField(await (await signedUp.get('/signup')).text(), '_csrf');
    expect((await signedUp.postForm('/signup', { email, password: PASSWORD, timezone: 'UTC', _csrf: signUpForm })).status).toBe(303);
    const signedIn = stack.browser();
    const signInForm = hiddenField(await (await signedIn.get('/login')).text(), '_csrf');
    expect((await signedIn.postForm('/login', { email, password: PASSWORD, _csrf: signInForm })).status).toBe(303);
    const client = await signedInAgain(signedIn, email);

    expect((await client.postJson('/api/account/logout-everywhere', {})).status).toBe(204);

    expect((await signedUp.get('/api/me')).status).toBe(401);
    expect((await signedIn.get('/api/me')).status).toBe(401);
  });

  it("finds the sessions without scanning Redis: the person's set holds the live ones, pruned of those that ended", async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const second = await signedInAgain(client, email);
    expect(await userSessionIds(id)).toHaveLength(2);
    expect((await second.postJson('/api/logout', {})).status).toBe(204);
    expect(await userSessionIds(id)).toHaveLength(1);
    await signedInAgain(client, email);
    expect(await userSessionIds(id)).toHaveLength(2);
  });
});

async function userSessionIds(userId: number): Promise<string[]> {
  const redis = createRedisConnection(stack.config.redis.target);
  try {
    return await redis.smembers(`${stack.config.redis.prefix}:user-sessions:${userId}`);
  } finally {
    redis.disconnect();
  }
}
