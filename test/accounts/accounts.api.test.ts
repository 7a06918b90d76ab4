import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, type ApiError } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const password = 'a long password';

describe('POST /api/signup', () => {
  it('creates the account, signs it in, and answers 201 with the same body as /api/me', async () => {
    const client = stack.browser();
    const response = await client.postJson('/api/signup', { email: 'Ana@Example.com', password, timezone: 'Australia/Eucla' });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toEqual({
      email: 'ana@example.com',
      emailVerified: false,
      timezone: 'Australia/Eucla',
      connectionMail: true,
      connection: null,
    });
    expect(await (await client.get('/api/me')).json()).toEqual(body);
  });

  it('answers 409 for a taken email, whatever its case', async () => {
    const client = stack.browser();
    await client.postJson('/api/signup', { email: 'taken@example.com', password, timezone: 'UTC' });
    const again = await stack.browser().postJson('/api/signup', { email: 'TAKEN@example.com', password, timezone: 'UTC' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'email_taken' });
  });

  it.each([
    [{ email: 'not-an-email', password, timezone: 'UTC' }, 'email'],
    [{ email: 'a@example.com', password: 'short', timezone: 'UTC' }, 'password'],
    [{ email: 'a@example.com', password, timezone: 'Mars/Olympus' }, 'timezone'],
    [{ email: 'a@example.com', password }, 'timezone'],
  ])('answers 400 naming the invalid field (%j)', async (body, field) => {
    const response = await stack.browser().postJson('/api/signup', body);
    expect(response.status).toBe(400);
    const error = await bodyOf<ApiError>(response);
    expect(error.fields).toEqual([field]);
    expect(error.message).toContain(field);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await stack.browser().postForm('/api/signup', { email: 'a@example.com', password, timezone: 'UTC' });
    expect(response.status).toBe(415);
  });

  it('refuses a request from another origin with 403, and serves one with no Origin', async () => {
    const body = { email: 'origin@example.com', password, timezone: 'UTC' };
    const foreign = await stack.browser().postJson('/api/signup', body, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const own = await stack.browser().postJson('/api/signup', body, { origin: stack.appUrl });
    expect(own.status).toBe(201);
  });
});

describe('POST /api/login and /api/logout', () => {
  it('signs in with the right password (200, the /api/me body) and out again', async () => {
    const email = await signUpNewUser(stack.browser());
    const client = stack.browser();
    const login = await client.postJson('/api/login', { email, password });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ email, emailVerified: false, timezone: 'Europe/Berlin', connectionMail: true, connection: null });
    expect((await client.postJson('/api/logout', {})).status).toBe(204);
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it('answers 401 alike for a wrong password and an unknown email', async () => {
    const email = await signUpNewUser(stack.browser());
    const wrongPassword = await stack.browser().postJson('/api/login', { email, password: 'not the password' });
    const unknownEmail = await stack.browser().postJson('/api/login', { email: 'nobody@example.com', password });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(await wrongPassword.json()).toEqual(await unknownEmail.json());
  });

  it('answers 400 for a login without a password', async () => {
    const response = await stack.browser().postJson('/api/login', { email: 'a@example.com' });
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual(['password']);
  });
});

describe('GET /api/me', () => {
  it('answers 401 when signed out', async () => {
    const response = await stack.browser().get('/api/me');
    expect(response.status).toBe(401);
  });
});
