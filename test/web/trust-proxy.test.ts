import { afterEach, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

/**
 * TRUST_PROXY decides whose X-Forwarded-For the app believes: the client address that sign-in
 * limits count against must be the person's behind a load balancer, and can never be chosen by a
 * client that talks to the app directly.
 */

let stack: Stack;
afterEach(async () => {
  await stack.close();
});

async function failedSignIns(email: string, forwardedFor: (attempt: number) => string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < count; attempt++) {
    const response = await stack
      .browser()
      .postJson('/api/login', { email, password: 'not the password' }, { 'x-forwarded-for': forwardedFor(attempt) });
    statuses.push(response.status);
  }
  return statuses;
}

describe('the client address behind a proxy', () => {
  it('is the forwarded one when TRUST_PROXY names the proxy: a locked-out address does not lock out another', async () => {
    stack = await startStack({ env: { TRUST_PROXY: 'loopback' } });
    const email = await signUpNewUser(stack.browser());
    expect(await failedSignIns(email, () => '203.0.113.5', 6)).toEqual([...Array(5).fill(401), 429]);
    expect(await failedSignIns(email, () => '203.0.113.6', 1)).toEqual([401]);
  });

  it('is the connection’s own when no proxy is trusted: a forged X-Forwarded-For escapes no limit', async () => {
    stack = await startStack();
    const email = await signUpNewUser(stack.browser());
    const forged = (attempt: number) => `203.0.113.${attempt + 1}`;
    expect(await failedSignIns(email, forged, 6)).toEqual([...Array(5).fill(401), 429]);
  });
});
