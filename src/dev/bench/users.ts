import { CookieClient } from '../cookie-client.js';
import { expectStatus, runConcurrently, type RateMeasurement } from './measure.js';
import { setAutoApprove } from './sandbox-records.js';
import type { BenchStack } from './stack.js';

const PASSWORD = 'a long bench password';
/** Several zones, so that days are placed by each user's own clock (whole, half and quarter hour offsets). */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Adelaide', 'UTC'];

export interface BenchUser {
  index: number;
  email: string;
  zone: string;
  /** The sandbox athlete this user connected as. */
  athlete: string;
  client: CookieClient;
}

export const APP_ATHLETE_PREFIX = 'app-user-';

/**
 * Signs up `count` users through the JSON API (at most `concurrency` at a time: each is a password
 * hash), then connects each through the real flow: /connect → the sandbox's authorize, set to approve
 * as this user's own athlete → the app's callback, with the session cookie kept. Their indexes
 * start at `firstIndex`: a run that signs up more people later gives them indexes of their own.
 */
export async function signUpAndConnect(stack: BenchStack, count: number, concurrency: number, firstIndex = 0): Promise<BenchUser[]> {
  const users = Array.from({ length: count }, (_, offset) => firstIndex + offset).map((index) => ({
    index,
    email: `bench-user-${index}@example.com`,
    zone: ZONES[index % ZONES.length]!,
    athlete: `${APP_ATHLETE_PREFIX}${index}`,
    client: new CookieClient(stack.appUrl),
  }));
  await runConcurrently(users, concurrency, async (user) => {
    const response = await user.client.postJson('/api/signup', { email: user.email, password: PASSWORD, timezone: user.zone });
    expectStatus(response, 201, 'POST /api/signup');
  });
  for (const user of users) {
    await setAutoApprove(stack.sandboxUrl, user.athlete);
    await connect(user.client);
  }
  return users;
}

async function connect(client: CookieClient): Promise<void> {
  const toService = await client.request('/connect');
  expectStatus(toService, 303, 'GET /connect');
  const authorize = await fetch(toService.headers.get('location') ?? '', { redirect: 'manual' });
  expectStatus(authorize, 302, "the sandbox's authorize");
  expectStatus(await client.request(authorize.headers.get('location') ?? ''), 303, 'the OAuth callback');
}

/**
 * Up to `size` concurrent sign-ins with the right password, spread over the users, each from a fresh
 * client; at most 5 at a time per account, as the app counts an attempt in flight against its limit
 * of failures per account and address.
 */
export function signInBurst(stack: BenchStack, users: BenchUser[], size: number): Promise<RateMeasurement> {
  const attempts = Array.from({ length: Math.min(size, 5 * users.length) }, (_, index) => users[index % users.length]!);
  return runConcurrently(attempts, attempts.length, async (user) => {
    expectStatus(await signIn(new CookieClient(stack.appUrl), user.email), 200, 'POST /api/login');
  });
}

/** POST /api/login as a bench user, with the password every bench user signed up with. */
export function signIn(client: CookieClient, email: string): Promise<Response> {
  return client.postJson('/api/login', { email, password: PASSWORD });
}
