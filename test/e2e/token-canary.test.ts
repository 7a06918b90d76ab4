import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, connectedUser, startConnect } from '../helpers/flows.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** Every token, code and refresh token the sandbox issues starts with one of these. */
const CANARY = /sbx_(at|rt|code)_/;

let stack: Stack;
const pages: string[] = [];

const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'trace' });
  const { client, userId } = await connectedUser(stack);

  // A refused code exchange, with the code in the URL the app logs about.
  const callback = await startConnect(client);
  callback.searchParams.set('code', `${callback.searchParams.get('code')}x`);
  pages.push(await (await client.get(callback.href)).text());

  // A refresh, a token endpoint that fails, a 401 on a data call, and a revoked grant.
  await stack.accessTokens({ clock: later(3600) }).accessTokenFor(userId);
  await stack.changeSandbox({ faultRate: 1, faultKinds: ['503'], faultTargets: ['token'] });
  await stack
    .accessTokens({ clock: later(7200) })
    .accessTokenFor(userId)
    .catch(() => undefined);
  await stack.changeSandbox({ faultRate: 0 });
  await writeDay(client, '2026-03-10');
  const stolen = (await stack.storedGrant(userId))!.refreshToken;
  for (let i = 0; i < 2; i++) await stack.presentRefreshToken(stolen); // reuse: the sandbox revokes the grant
  await sendEntry(stack.sendDependencies(), { userId, kind: workload.syncKind, subject: '2026-03-10' });
  pages.push(await (await client.get('/')).text());
  expect((await connect(client)).status).toBe(303);
});
afterAll(async () => {
  await stack.close();
});

describe('the token canary', () => {
  it('the app logged the flow, at every level, without a single token or code', () => {
    const logs = stack.logs.join('');
    expect(logs).toContain('tokens refreshed');
    expect(logs).toContain('code exchange failed');
    expect(logs).toContain('the connection needs reconnecting');
    expect(logs).not.toMatch(CANARY);
  });

  it('no page shown to the person carries a token or code', () => {
    expect(pages.join('')).not.toMatch(CANARY);
  });
});
