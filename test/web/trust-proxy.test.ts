import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { minimalAppEnvironment } from '../helpers/minimal-environment.js';
import { signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';

/**
 * TRUST_PROXY decides whose X-Forwarded-For the app believes: the client address that sign-in
 * limits count against must be the person's behind a load balancer, and can never be chosen by a
 * client that talks to the app directly.
 */

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function failedSignIns(email: string, forwardedFor: (attempt: number) => string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < count; attempt++) {
    const response = await stack!
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

describe('TRUST_PROXY unset, with APP_BASE_URL https', () => {
  /** Whether the app, configured from `env`, believes the X-Forwarded-For of a peer at `address`. */
  function believes(env: Record<string, string>, address: string): boolean {
    const app = express().set('trust proxy', loadConfig({ ...minimalAppEnvironment(), ...env }).trustProxy);
    const trusts = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    return trusts(address, 0);
  }

  it('believes a proxy on this machine only: a client that reaches the app directly cannot claim an address', () => {
    const https = { APP_BASE_URL: 'https://sync.example.com' };
    expect(believes(https, '127.0.0.1')).toBe(true);
    expect(believes(https, '::1')).toBe(true);
    for (const client of ['203.0.113.9', '10.0.0.7', '2001:db8::7']) expect(believes(https, client)).toBe(false);
    expect(believes({ ...https, TRUST_PROXY: '10.0.0.0/8' }, '10.0.0.7')).toBe(true);
  });

  it('counts sign-ins per forwarded address behind a proxy on this machine, with no setting', async () => {
    stack = await startStack({ env: { APP_BASE_URL: 'https://sync.example.com' } });
    const https = { 'x-forwarded-proto': 'https', 'content-type': 'application/json' };
    const signUp = await fetch(`${stack.appUrl}/api/signup`, {
      method: 'POST',
      headers: https,
      body: JSON.stringify({ email: 'behind@example.com', password: 'a long password', timezone: 'UTC' }),
    });
    expect(signUp.status).toBe(201);
    expect(await failedSignIns('behind@example.com', () => '203.0.113.5', 6)).toEqual([...Array(5).fill(401), 429]);
    expect(await failedSignIns('behind@example.com', () => '203.0.113.6', 1)).toEqual([401]);
  });

  it('warns the operator once when a request arrives as plain http, as through a proxy that is not believed', async () => {
    stack = await startStack({ env: { APP_BASE_URL: 'https://sync.example.com' }, captureLogs: 'warn' });
    await fetch(`${stack.appUrl}/login`);
    await fetch(`${stack.appUrl}/signup`);
    const warnings = stack.logs.map((line) => JSON.parse(line) as { msg: string }).filter((line) => line.msg.includes('TRUST_PROXY'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/plain http although APP_BASE_URL is https/);
  });
});

describe('IPv6 clients', () => {
  it('are counted per /64, the block one customer gets: rotating addresses within it escapes no limit', async () => {
    stack = await startStack({ env: { TRUST_PROXY: 'loopback' } });
    const email = await signUpNewUser(stack.browser());
    const sameBlock = (attempt: number) => `2001:db8:5:6:${(attempt + 1).toString(16)}::${attempt + 7}`;
    expect(await failedSignIns(email, sameBlock, 6)).toEqual([...Array(5).fill(401), 429]);
    expect(await failedSignIns(email, () => '2001:db8:5:7::1', 1)).toEqual([401]);
  });

  it('reached over IPv4 on a dual-stack socket (::ffff:203.0.113.5) are the IPv4 address, not one /64 for all', async () => {
    stack = await startStack({ env: { TRUST_PROXY: 'loopback' } });
    const email = await signUpNewUser(stack.browser());
    expect(await failedSignIns(email, () => '::ffff:203.0.113.5', 5)).toEqual(Array(5).fill(401));
    expect(await failedSignIns(email, () => '203.0.113.5', 1)).toEqual([429]);
    expect(await failedSignIns(email, () => '::ffff:203.0.113.6', 1)).toEqual([401]);
  });
});
