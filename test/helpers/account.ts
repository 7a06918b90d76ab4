import type { CookieClient } from './http-client.js';

/** The password every test account is signed up with (flows.ts). */
export const PASSWORD = 'a long password';

/** A JSON request of any method, as the API's clients send them. */
export function sendJson(
  client: CookieClient,
  method: 'PATCH' | 'DELETE' | 'POST',
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return client.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A second browser signed in to the same account. */
export async function signedInAgain(client: CookieClient, email: string): Promise<CookieClient> {
  const other = new (client.constructor as new (origin: string) => CookieClient)(client.origin);
  const response = await other.postJson('/api/login', { email, password: PASSWORD });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  return other;
}
