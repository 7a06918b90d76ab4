import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  REDIRECT_URI,
  authorizeRequest,
  exchangeCode,
  getWithToken,
  newPkce,
  postJson,
  readState,
  readTokens,
  redirectTarget,
  refreshWith,
  startSandbox,
  type RunningSandbox,
} from './helpers.js';

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await startSandbox({ autoApprove: null });
});
afterEach(() => sandbox.stop());

function hiddenRequestId(html: string): string {
  const match = /name="request_id" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no request_id on the consent page');
  return match[1];
}

function decide(requestId: string, decision: 'approve' | 'deny', athlete = ''): Promise<Response> {
  return fetch(new URL('/api/oauth/authorize/decision', sandbox.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request_id: requestId, decision, athlete }),
    redirect: 'manual',
  });
}

describe('the whole authorization code flow with PKCE', () => {
  it('goes from consent to tokens to data to a refresh', async () => {
    const pkce = newPkce();
    const consent = await authorizeRequest(sandbox, {
      scope: 'nutrition:write workout:read',
      state: 'xyz',
      code_challenge: pkce.challenge,
    });
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain('nutrition:write');
    expect(page).toContain('Log calories, macros and individual meal items.');

    const approved = await decide(hiddenRequestId(page), 'approve', 'Ada');
    expect(approved.status).toBe(303);
    const callback = redirectTarget(approved);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe('xyz');
    const code = callback.searchParams.get('code') ?? '';
    expect(code).toMatch(/^sbx_code_[A-Za-z0-9_-]{43,}$/);

    const tokenResponse = await exchangeCode(sandbox, { code, verifier: pkce.verifier });
    expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
    expect(tokenResponse.headers.get('pragma')).toBe('no-cache');
    const tokens = await readTokens(tokenResponse);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'nutrition:write workout:read' });
    expect(tokens).not.toHaveProperty('refresh_token_expires_in');

    const nutrition = { date: '2026-03-01', items: [{ name: 'Gel', carbs: 25, logged_at: '2026-03-01T09:00:00+01:00' }] };
    expect((await postJson(sandbox, '/api/nutrition', nutrition, tokens.access_token)).status).toBe(201);
    const listing = await getWithToken(sandbox, '/api/workouts', tokens.access_token);
    expect(await listing.json()).toEqual({ workouts: [] });

    const refreshed = await readTokens(await refreshWith(sandbox, tokens.refresh_token ?? ''));
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await getWithToken(sandbox, '/api/workouts', refreshed.access_token)).status).toBe(200);
    // Section 2.1: expires_in is the access token's lifetime; the old one still works until then.
    expect((await getWithToken(sandbox, '/api/workouts', tokens.access_token)).status).toBe(200);

    expect(await readState(sandbox)).toMatchObject({
      athletes: { Ada: { nutrition: { '2026-03-01': { writes: 1, payload: nutrition } } } },
      grants: [
        {
          athlete: 'Ada',
          status: 'active',
          refreshCount: 1,
          currentRefreshTokenSha256: createHash('sha256')
            .update(refreshed.refresh_token ?? '')
            .digest('hex'),
        },
      ],
      counters: {
        tokenGrants: { authorization_code: 1, refresh_token: 1 },
        refreshRequests: 1,
        requests: { 'POST /api/nutrition': { '201': 1 }, 'POST /api/oauth/token': { '200': 2 } },
      },
    });
  });

  it('sends the athlete back with access_denied, the state and the issuer when they deny', async () => {
    const page = await (await authorizeRequest(sandbox, { state: 'abc' })).text();
    const denied = redirectTarget(await decide(hiddenRequestId(page), 'deny'));
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('abc');
    expect(denied.searchParams.get('iss')).toBe(sandbox.baseUrl);
    expect(denied.searchParams.has('code')).toBe(false);
  });

  it('asks again, without deciding, when approval names no athlete', async () => {
    const requestId = hiddenRequestId(await (await authorizeRequest(sandbox)).text());
    const unnamed = await decide(requestId, 'approve', '   ');
    expect(unnamed.status).toBe(400);
    expect(await unnamed.text()).toContain('Choose an athlete or type a new name.');
    expect((await decide(requestId, 'approve', 'Bea')).status).toBe(303);
  });

  it('lists existing athletes on the consent page and decides each request only once', async () => {
    const first = hiddenRequestId(await (await authorizeRequest(sandbox)).text());
    await decide(first, 'approve', 'Cleo <script>');
    const page = await (await authorizeRequest(sandbox)).text();
    expect(page).toContain('<option value="Cleo &lt;script&gt;">');
    const again = await decide(first, 'approve', 'Cleo');
    expect(again.status).toBe(303);
    const sentBack = redirectTarget(again);
    expect(`${sentBack.origin}${sentBack.pathname}`).toBe(REDIRECT_URI);
    expect(sentBack.searchParams.get('error')).toBe('invalid_request');
    expect(sentBack.searchParams.has('code')).toBe(false);
  });

  it("sends a second decision (the browser's Back) back to the client with invalid_request and the state", async () => {
    const requestId = hiddenRequestId(await (await authorizeRequest(sandbox, { state: 'spent' })).text());
    expect((await decide(requestId, 'approve', 'Dora')).status).toBe(303);
    const sentBack = redirectTarget(await decide(requestId, 'deny'));
    expect(Object.fromEntries(sentBack.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'this authorization request was already decided',
      state: 'spent',
      iss: sandbox.baseUrl,
    });
    expect(await readState(sandbox)).toMatchObject({ grants: [] });
  });

  it('links back to the registered application when it does not know the request at all', async () => {
    const unknown = await decide('never-issued', 'approve', 'Eve');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    const page = await unknown.text();
    expect(page).toContain('This authorization request is unknown to the sandbox.');
    expect(page).toContain(`<a href="${new URL(REDIRECT_URI).origin}/">`);
  });
});
