import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { BenchStack } from './stack.js';
import { expectStatus, expectSuccess, runConcurrently, type RateMeasurement } from './measure.js';
import { setAutoApprove } from './sandbox-records.js';

/**
 * A plain client of the sandbox, without the app: the reference the bench compares with. It gets a
 * token per athlete by the code flow (§4.1, §4.2), for a kind's scope, and posts day records
 * straight to the kind's path.
 */
const tokenResponseSchema = z.object({ access_token: z.string() });

export async function directAccessToken(stack: BenchStack, athlete: string, scope: string): Promise<string> {
  await setAutoApprove(stack.sandboxUrl, athlete);
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/api/oauth/authorize', stack.sandboxUrl);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: stack.clientId,
    redirect_uri: stack.redirectUri,
    scope,
    state: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const approved = await fetch(authorize, { redirect: 'manual' });
  const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code');
  if (code === null) throw new Error(`the sandbox's authorize gave no code (status ${approved.status})`);
  const token = await fetch(`${stack.sandboxUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code,
      redirect_uri: stack.redirectUri,
      code_verifier: verifier,
      client_id: stack.clientId,
      client_secret: stack.clientSecret,
    }),
  });
  expectStatus(token, 200, 'the token exchange');
  return tokenResponseSchema.parse(await token.json()).access_token;
}

export interface DirectUpsert {
  token: string;
  record: unknown;
}

/** Upserts each record at `servicePath`, the kind's path at the service, at `concurrency`, timing each. */
export function upsertDirectly(
  sandboxUrl: string,
  servicePath: string,
  upserts: DirectUpsert[],
  concurrency: number,
): Promise<RateMeasurement> {
  return runConcurrently(upserts, concurrency, async ({ token, record }) => {
    const response = await fetch(`${sandboxUrl}${servicePath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(record),
    });
    expectSuccess(response, `POST ${servicePath}`);
    await response.arrayBuffer();
  });
}
