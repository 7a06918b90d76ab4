import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/sandbox/settings.js';
import { eventually } from '../helpers/wait.js';
import {
  changeSettings,
  getWithToken,
  obtainTokens,
  postToken,
  readState,
  readTokens,
  refreshWith,
  startSandbox,
  type RunningSandbox,
} from './helpers.js';

let sandbox: RunningSandbox;
afterEach(() => sandbox.stop());

async function start(overrides: Partial<Settings> = {}): Promise<RunningSandbox> {
  sandbox = await startSandbox(overrides);
  return sandbox;
}

async function expectInvalidGrant(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body: unknown = await response.json();
  expect(body).toMatchObject({ error: 'invalid_grant' });
  return JSON.stringify(body);
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('refresh with rotation and reuse detection (the defaults)', () => {
  it('issues a new refresh token each time and keeps earlier access tokens valid', async () => {
    await start();
    const first = await obtainTokens(sandbox);
    const second = await readTokens(await refreshWith(sandbox, first.refresh_token));
    expect(second.refresh_token).toMatch(/^sbx_rt_/);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.expires_in).toBe(3600);
    expect(second.scope).toBe(first.scope);
    expect((await getWithToken(sandbox, '/api/workouts', first.access_token)).status).toBe(200);
    expect((await getWithToken(sandbox, '/api/workouts', second.access_token)).status).toBe(200);
  });

  it('revokes the whole grant when a rotated-out refresh token comes back', async () => {
    await start();
    const first = await obtainTokens(sandbox);
    const second = await readTokens(await refreshWith(sandbox, first.refresh_token));

    expect(await expectInvalidGrant(await refreshWith(sandbox, first.refresh_token))).toContain('revoked');

    expect((await getWithToken(sandbox, '/api/workouts', second.access_token)).status).toBe(401);
    expect((await getWithToken(sandbox, '/api/workouts', first.access_token)).status).toBe(401);
    await expectInvalidGrant(await refreshWith(sandbox, second.refresh_token ?? ''));
    expect(await readState(sandbox)).toMatchObject({
      grants: [{ status: 'revoked', revokedReason: 'refresh_token_reuse', refreshCount: 1 }],
      counters: { reuseDetections: 1, refreshRequests: 3, tokenGrants: { refresh_token: 1 } },
    });
  });

  it('only refuses a rotated-out token when reuse detection is off', async () => {
    await start({ reuseDetection: false });
    const first = await obtainTokens(sandbox);
    const second = await readTokens(await refreshWith(sandbox, first.refresh_token));
    await expectInvalidGrant(await refreshWith(sandbox, first.refresh_token));
    expect((await refreshWith(sandbox, second.refresh_token ?? '')).status).toBe(200);
    expect(await readState(sandbox)).toMatchObject({ grants: [{ status: 'active' }], counters: { reuseDetections: 0 } });
  });

  it('treats a rotated-out token within the grace period as a normal refresh', async () => {
    await start({ reuseGraceS: 10 });
    const first = await obtainTokens(sandbox);
    await readTokens(await refreshWith(sandbox, first.refresh_token));
    sandbox.clock.advanceSeconds(9);
    const again = await readTokens(await refreshWith(sandbox, first.refresh_token));
    expect(again.refresh_token).toMatch(/^sbx_rt_/);
    expect(await readState(sandbox)).toMatchObject({
      grants: [{ status: 'active', refreshCount: 2, currentRefreshTokenSha256: sha256(again.refresh_token ?? '') }],
    });
  });

  it('detects reuse once the grace period is over', async () => {
    await start({ reuseGraceS: 10 });
    const first = await obtainTokens(sandbox);
    await readTokens(await refreshWith(sandbox, first.refresh_token));
    sandbox.clock.advanceSeconds(10);
    await expectInvalidGrant(await refreshWith(sandbox, first.refresh_token));
    expect(await readState(sandbox)).toMatchObject({ grants: [{ status: 'revoked' }], counters: { reuseDetections: 1 } });
  });

  it('refuses an unknown refresh token', async () => {
    await start();
    await expectInvalidGrant(await refreshWith(sandbox, 'sbx_rt_made-up'));
  });

  it('refuses a refresh without refresh_token as invalid_request', async () => {
    await start();
    const response = await postToken(sandbox, { grant_type: 'refresh_token' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', fields: ['refresh_token'] });
  });
});

describe('a slow token endpoint (tokenDelayMs)', () => {
  it('applies a refresh at once and holds the answer for the delay, which can be set at run time', async () => {
    await start();
    const first = await obtainTokens(sandbox);
    expect((await changeSettings(sandbox, { tokenDelayMs: 2000 })).status).toBe(200);
    const sentAt = Date.now();
    let answered = false;
    const answer = refreshWith(sandbox, first.refresh_token).finally(() => (answered = true));
    const [grant] = sandbox.runtime.state.grants.values();
    await eventually('the rotation to be applied', async () => (grant!.refreshCount === 1 ? true : undefined));
    expect(answered).toBe(false);
    const second = await readTokens(await answer);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2000);
    expect(grant!.currentRefreshTokenSha256).toBe(sha256(second.refresh_token ?? ''));
  });
});

describe('refresh without rotation', () => {
  it('omits refresh_token from the response and keeps the same refresh token working', async () => {
    await start({ rotateRefreshTokens: false });
    const first = await obtainTokens(sandbox);
    for (let round = 0; round < 3; round += 1) {
      const refreshed = await readTokens(await refreshWith(sandbox, first.refresh_token));
      expect(refreshed).not.toHaveProperty('refresh_token');
      expect((await getWithToken(sandbox, '/api/workouts', refreshed.access_token)).status).toBe(200);
    }
    expect(await readState(sandbox)).toMatchObject({
      grants: [{ refreshCount: 3, currentRefreshTokenSha256: sha256(first.refresh_token) }],
    });
  });
});

describe('refresh token lifetime', () => {
  it('is not announced when not set', async () => {
    await start();
    const first = await obtainTokens(sandbox);
    expect(first).not.toHaveProperty('refresh_token_expires_in');
    sandbox.clock.advanceSeconds(365 * 24 * 3600);
    expect((await refreshWith(sandbox, first.refresh_token)).status).toBe(200);
  });

  it('is announced as refresh_token_expires_in and enforced when set', async () => {
    await start({ refreshTokenTtlS: 100 });
    const first = await obtainTokens(sandbox);
    expect(first.refresh_token_expires_in).toBe(100);
    sandbox.clock.advanceSeconds(100);
    expect(await expectInvalidGrant(await refreshWith(sandbox, first.refresh_token))).toContain('expired');
  });

  it('starts again for each rotated refresh token', async () => {
    await start({ refreshTokenTtlS: 100 });
    const first = await obtainTokens(sandbox);
    sandbox.clock.advanceSeconds(90);
    const second = await readTokens(await refreshWith(sandbox, first.refresh_token));
    expect(second.refresh_token_expires_in).toBe(100);
    sandbox.clock.advanceSeconds(90);
    expect((await refreshWith(sandbox, second.refresh_token ?? '')).status).toBe(200);
  });

  it('counts down for the kept refresh token when rotation is off', async () => {
    await start({ refreshTokenTtlS: 100, rotateRefreshTokens: false });
    const first = await obtainTokens(sandbox);
    sandbox.clock.advanceSeconds(30);
    expect((await readTokens(await refreshWith(sandbox, first.refresh_token))).refresh_token_expires_in).toBe(70);
  });
});

describe('refresh with a scope (RFC 6749 §6)', () => {
  it('narrows the new access token to the scope asked', async () => {
    await start();
    const first = await obtainTokens(sandbox, 'workout:read health:write');
    const narrowed = await readTokens(
      await postToken(sandbox, { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'workout:read' }),
    );
    expect(narrowed.scope).toBe('workout:read');
    expect((await getWithToken(sandbox, '/api/workouts', narrowed.access_token)).status).toBe(200);
  });

  it('refuses a scope beyond the grant with invalid_scope', async () => {
    await start();
    const first = await obtainTokens(sandbox, 'workout:read');
    const response = await postToken(sandbox, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      scope: 'workout:read nutrition:write',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_scope' });
  });
});
