import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { postJsonFrom } from '../helpers/from-address.js';
import { hiddenField } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

const password = 'a long password';
const FIFTEEN_MINUTES_S = 15 * 60;

async function wrongPassword(stack: Stack, email: string, address: string): Promise<number> {
  return (await postJsonFrom(address, `${stack.appUrl}/api/login`, { email, password: 'not the password' })).status;
}

/** Status codes of `count` sign-ins with a wrong password, one after another, from `address`. */
async function wrongPasswords(stack: Stack, email: string, count: number, address = '127.0.0.1'): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push(await wrongPassword(stack, email, address));
  return statuses;
}

function signIn(stack: Stack, email: string, address: string) {
  return postJsonFrom(address, `${stack.appUrl}/api/login`, { email, password });
}

describe('failed sign-ins on one account, from one address', () => {
  let stack: Stack;
  beforeAll(async () => {
    // A large address budget, so that only the account's limit is at work here.
    stack = await startStack({ env: { SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: '1000' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answer 429 with Retry-After once 5 have failed, even for the right password', async () => {
    const email = await signUpNewUser(stack.browser());
    const statuses = await wrongPasswords(stack, email, 30);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);

    const right = await signIn(stack, email, '127.0.0.1');
    expect(right.status).toBe(429);
    expect(right.body).toEqual({ error: 'too_many_attempts', message: expect.stringContaining('Too many attempts') });
    const retryAfterS = Number(right.headers['retry-after']);
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(FIFTEEN_MINUTES_S);
  });

  it('lock out only that address: the account signs in from another, and other accounts are unaffected', async () => {
    const victim = await signUpNewUser(stack.browser());
    const bystander = await signUpNewUser(stack.browser());
    expect((await wrongPasswords(stack, victim, 6, '127.0.0.2')).at(-1)).toBe(429);

    expect((await signIn(stack, victim, '127.0.0.3')).status).toBe(200);
    expect((await signIn(stack, bystander, '127.0.0.4')).status).toBe(200);
  });

  it("are forgiven by a success: the account's count starts again", async () => {
    const email = await signUpNewUser(stack.browser());
    expect(await wrongPasswords(stack, email, 4, '127.0.0.5')).toEqual(Array(4).fill(401));
    expect((await signIn(stack, email, '127.0.0.5')).status).toBe(200);
    expect(await wrongPasswords(stack, email, 6, '127.0.0.5')).toEqual([...Array(5).fill(401), 429]);
  });

  it('on the sign-in page: the page again, with a plain sentence, status 429 and Retry-After', async () => {
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    const csrf = hiddenField(await (await client.get('/login')).text(), '_csrf');
    const attempt = () => client.postForm('/login', { email, password: 'not the password', _csrf: csrf });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);

    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await refused.text();
    expect(page).toContain('<h1>Sign in</h1>');
    expect(page).toMatch(/Too many attempts\. Please try again in \d+ minutes?\./);
  });
});

describe('one address', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      env: { SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: '8', SIGNUPS_PER_ADDRESS_PER_HOUR: '3', SESSIONS_PER_ADDRESS_PER_HOUR: '5' },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('failing on many accounts spends its budget (SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR); others are unaffected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push(await wrongPassword(stack, `guess${i}@example.com`, '127.0.0.6'));
    expect(statuses).toEqual([...Array(8).fill(401), 429]);
    expect(await wrongPassword(stack, 'guess0@example.com', '127.0.0.7')).toBe(401);
  });

  it('signing up again and again gets 429 and Retry-After (SIGNUPS_PER_ADDRESS_PER_HOUR), on the API and the page', async () => {
    const signUp = (i: number) =>
      postJsonFrom('127.0.0.8', `${stack.appUrl}/api/signup`, { email: `flood${i}@example.com`, password, timezone: 'UTC' });
    for (let i = 0; i < 3; i++) expect((await signUp(i)).status).toBe(201);
    const refused = await signUp(3);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_attempts' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    const client = stack.browser();
    for (let i = 0; i < 3; i++) await signUpNewUser(client);
    const csrf = hiddenField(await (await client.get('/signup')).text(), '_csrf');
    const page = await client.postForm('/signup', { email: 'page@example.com', password, timezone: 'UTC', _csrf: csrf });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).not.toBeNull();
    expect(await page.text()).toContain('Too many attempts');
  });

  it('starting session after session gets 429 and Retry-After (SESSIONS_PER_ADDRESS_PER_HOUR): sign-ins and sign-ups count', async () => {
    const email = 'often@example.com';
    expect((await postJsonFrom('127.0.0.9', `${stack.appUrl}/api/signup`, { email, password, timezone: 'UTC' })).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await signIn(stack, email, '127.0.0.9')).status).toBe(200);
    const refused = await signIn(stack, email, '127.0.0.9');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_attempts' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn(stack, email, '127.0.0.10')).status).toBe(200);
  });
});
