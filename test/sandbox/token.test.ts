import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  REDIRECT_URI,
  exchangeCode,
  getWithToken,
  obtainCode,
  postToken,
  readState,
  readTokens,
  refreshWith,
  startSandbox,
  type RunningSandbox,
} from './helpers.js';

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await startSandbox({ redirectUris: [REDIRECT_URI, 'http://localhost:3000/other-callback'] });
});
afterEach(() => sandbox.stop());

async function expectTokenError(response: Response, status: number, error: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('pragma')).toBe('no-cache');
  const body: unknown = await response.json();
  expect(body).toMatchObject({ error, error_description: expect.any(String) });
  return JSON.stringify(body);
}

describe('POST /api/oauth/token: the request itself', () => {
  it('refuses a form-encoded request with 415', async () => {
    const { code, verifier } = await obtainCode(sandbox);
    const response = await fetch(new URL('/api/oauth/token', sandbox.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        client_id: sandbox.settings.clientId,
        client_secret: sandbox.settings.clientSecret,
      }),
    });
    await expectTokenError(response, 415, 'invalid_request');
  });

  it('answers malformed JSON with a JSON 400', async () => {
    const response = await fetch(new URL('/api/oauth/token', sandbox.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"grant_type": ',
    });
    expect(await expectTokenError(response, 400, 'invalid_request')).toContain('not valid JSON');
  });

  it('refuses a wrong client secret with 401 invalid_client', async () => {
    const response = await exchangeCode(sandbox, await obtainCode(sandbox), { client_secret: 'guess' });
    await expectTokenError(response, 401, 'invalid_client');
  });

  it('refuses an unknown client with 401 invalid_client', async () => {
    const response = await exchangeCode(sandbox, await obtainCode(sandbox), { client_id: 'someone-else' });
    await expectTokenError(response, 401, 'invalid_client');
  });

  it('refuses a grant type it does not support', async () => {
    await expectTokenError(await postToken(sandbox, { grant_type: 'password' }), 400, 'unsupported_grant_type');
  });

  it('refuses a request without grant_type', async () => {
    await expectTokenError(await postToken(sandbox, {}), 400, 'invalid_request');
  });
});

describe('POST /api/oauth/token with grant_type=authorization_code', () => {
  it('refuses a code_verifier that does not match the challenge', async () => {
    const { code } = await obtainCode(sandbox);
    const response = await exchangeCode(sandbox, { code, verifier: 'x'.repeat(43) });
    expect(await expectTokenError(response, 400, 'invalid_grant')).toContain('code_verifier');
  });

  it.each([
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(129)],
    ['outside the unreserved characters', `${'a'.repeat(42)}+`],
  ])('refuses a code_verifier %s as invalid_request', async (_case, verifier) => {
    const { code } = await obtainCode(sandbox);
    const body = await expectTokenError(await exchangeCode(sandbox, { code, verifier }), 400, 'invalid_request');
    expect(JSON.parse(body)).toMatchObject({ fields: ['code_verifier'] });
  });

  it.each(['code', 'redirect_uri', 'code_verifier'])('refuses a request without %s', async (field) => {
    const response = await exchangeCode(sandbox, await obtainCode(sandbox), { [field]: undefined });
    const body = await expectTokenError(response, 400, 'invalid_request');
    expect(JSON.parse(body)).toMatchObject({ fields: [field] });
  });

  it('refuses a code with a redirect_uri other than the authorization request', async () => {
    const response = await exchangeCode(sandbox, await obtainCode(sandbox), {
      redirect_uri: 'http://localhost:3000/other-callback',
    });
    expect(await expectTokenError(response, 400, 'invalid_grant')).toContain('redirect_uri');
  });

  it('refuses an unknown code', async () => {
    const { verifier } = await obtainCode(sandbox);
    await expectTokenError(await exchangeCode(sandbox, { code: 'sbx_code_made-up', verifier }), 400, 'invalid_grant');
  });

  it('refuses a code after its lifetime (60 s by default)', async () => {
    const code = await obtainCode(sandbox);
    sandbox.clock.advanceSeconds(60);
    expect(await expectTokenError(await exchangeCode(sandbox, code), 400, 'invalid_grant')).toContain('expired');
  });

  it('accepts a code just before its lifetime ends', async () => {
    const code = await obtainCode(sandbox);
    sandbox.clock.advanceSeconds(59);
    expect((await exchangeCode(sandbox, code)).status).toBe(200);
  });

  it('refuses a code used twice and revokes the tokens it issued (RFC 6749 §4.1.2)', async () => {
    const code = await obtainCode(sandbox);
    const first = await readTokens(await exchangeCode(sandbox, code));
    expect((await getWithToken(sandbox, '/api/workouts', first.access_token)).status).toBe(200);

    expect(await expectTokenError(await exchangeCode(sandbox, code), 400, 'invalid_grant')).toContain('already used');

    const revokedAccess = await getWithToken(sandbox, '/api/workouts', first.access_token);
    expect(revokedAccess.status).toBe(401);
    expect(revokedAccess.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expectTokenError(await refreshWith(sandbox, first.refresh_token ?? ''), 400, 'invalid_grant');
    expect(await readState(sandbox)).toMatchObject({
      grants: [{ status: 'revoked', revokedReason: 'authorization_code_reuse' }],
      counters: { codeReuses: 1, tokenGrants: { authorization_code: 1, refresh_token: 0 } },
    });
  });

  it('hands out credentials that are recognisable and long', async () => {
    const tokens = await readTokens(await exchangeCode(sandbox, await obtainCode(sandbox)));
    expect(tokens.access_token).toMatch(/^sbx_at_[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^sbx_rt_[A-Za-z0-9_-]{43}$/);
  });
});
