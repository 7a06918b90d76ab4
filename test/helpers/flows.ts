import { expect } from 'vitest';
import { createPasswordHasher } from '../../src/accounts/password.js';
import { insertUser } from '../../src/accounts/user.repository.js';
import type { CookieClient } from './http-client.js';
import type { Stack } from './stack.js';
import { eventually } from './wait.js';

let counter = 0;

/** Signs up a new user through the JSON API; the client then holds their session. */
export async function signUpNewUser(client: CookieClient, timezone = 'Europe/Berlin'): Promise<string> {
  const email = `user${++counter}-${Date.now()}@example.com`;
  const response = await client.postJson('/api/signup', { email, password: 'a long password', timezone });
  expect(response.status).toBe(201);
  return email;
}

/** GET /connect and the sandbox's authorize (set to auto-approve): returns the callback URL it sent back. */
export async function startConnect(client: CookieClient): Promise<URL> {
  const toService = await client.get('/connect');
  expect(toService.status).toBe(303);
  const authorize = await fetch(toService.headers.get('location')!, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  return new URL(authorize.headers.get('location')!);
}

/** The whole Connect flow against an auto-approving sandbox; returns the callback's response. */
export async function connect(client: CookieClient): Promise<Response> {
  const callback = await startConnect(client);
  return client.get(callback.href);
}

/**
 * The Connect flow up to the callback's code exchange, the service holding its token answer for
 * `holdMs`: resolves once the code is exchanged and the callback waits for that answer (past
 * sign-in, its session loaded), with the callback's response to come.
 */
export async function connectHeldAtTokenAnswer(
  stack: Stack,
  client: CookieClient,
  holdMs: number,
): Promise<{ answer: Promise<Response>; answered: () => boolean }> {
  const callback = await startConnect(client);
  const exchanges = async () => (await stack.sandboxState()).counters.tokenGrants.authorization_code ?? 0;
  const before = await exchanges();
  await stack.changeSandbox({ tokenDelayMs: holdMs });
  let answered = false;
  const answer = client.get(callback.href).finally(() => (answered = true));
  try {
    await eventually('the code exchange', async () => ((await exchanges()) > before ? true : undefined));
  } finally {
    // The answer already held keeps its delay.
    await stack.changeSandbox({ tokenDelayMs: 0 });
  }
  return { answer, answered: () => answered };
}

/** A new user who has connected (the sandbox must auto-approve); returns their client and id. */
export async function connectedUser(
  stack: Stack,
  { timezone }: { timezone?: string } = {},
): Promise<{ client: CookieClient; userId: number }> {
  const client = stack.browser();
  const email = await signUpNewUser(client, timezone);
  expect((await connect(client)).status).toBe(303);
  const user = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { client, userId: user.id };
}

/**
 * Signs in to an account made straight in the store, as one made before the stack's settings
 * named it (an address in ADMIN_EMAILS cannot be signed up for); returns the signed-in client.
 */
export async function signedInToExistingAccount(stack: Stack, email: string): Promise<CookieClient> {
  const password = 'a long password';
  await insertUser(stack.db, {
    email: email.toLowerCase(),
    password_hash: await createPasswordHasher().hash(password),
    timezone: 'UTC',
    created_at: new Date().toISOString(),
  });
  const client = stack.browser();
  expect((await client.postJson('/api/login', { email, password })).status).toBe(200);
  return client;
}
