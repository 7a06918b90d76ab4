import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getWithToken, obtainTokens, postJson, startSandbox, type RunningSandbox } from './helpers.js';

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await startSandbox();
});
afterEach(() => sandbox.stop());

describe('Bearer authentication of the data endpoints (RFC 6750)', () => {
  it('challenges a request without a token, with no error code', async () => {
    const response = await fetch(new URL('/api/workouts', sandbox.baseUrl));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="athlete-data"');
    expect(await response.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('treats another authentication scheme as no token', async () => {
    const response = await fetch(new URL('/api/workouts', sandbox.baseUrl), { headers: { Authorization: 'Basic YTpi' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="athlete-data"');
  });

  it('refuses an unknown token with invalid_token', async () => {
    const response = await getWithToken(sandbox, '/api/workouts', 'sbx_at_made-up');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('refuses an access token after its lifetime with invalid_token', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ accessTokenTtlS: 60 });
    const { access_token, expires_in } = await obtainTokens(sandbox);
    expect(expires_in).toBe(60);
    sandbox.clock.advanceSeconds(59);
    expect((await getWithToken(sandbox, '/api/workouts', access_token)).status).toBe(200);
    sandbox.clock.advanceSeconds(1);
    const expired = await getWithToken(sandbox, '/api/workouts', access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await expired.json()).toMatchObject({ error_description: 'access token expired' });
  });

  it('accepts an access token for the leeway past its lifetime, which expires_in does not count', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ accessTokenTtlS: 60, accessTokenLeewayS: 30 });
    const { access_token, expires_in } = await obtainTokens(sandbox);
    expect(expires_in).toBe(60);
    sandbox.clock.advanceSeconds(89);
    expect((await getWithToken(sandbox, '/api/workouts', access_token)).status).toBe(200);
    sandbox.clock.advanceSeconds(1);
    expect((await getWithToken(sandbox, '/api/workouts', access_token)).status).toBe(401);
  });

  it('refuses a token without the scope with 403 insufficient_scope naming the scope', async () => {
    const { access_token } = await obtainTokens(sandbox, 'workout:read');
    const response = await postJson(sandbox, '/api/wellness', { date: '2026-03-01' }, access_token);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="athlete-data", error="insufficient_scope", scope="health:write"');
    expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
  });

  it.each([
    ['/api/nutrition', 'health:write workout:read workout:write'],
    ['/api/wellness', 'nutrition:write workout:read workout:write'],
    ['/api/workouts/upload-fit', 'nutrition:write health:write workout:read'],
  ])('guards POST %s with its scope', async (path, otherScopes) => {
    const { access_token } = await obtainTokens(sandbox, otherScopes);
    expect((await postJson(sandbox, path, {}, access_token)).status).toBe(403);
  });

  it('guards GET /api/workouts with workout:read', async () => {
    const { access_token } = await obtainTokens(sandbox, 'workout:write');
    expect((await getWithToken(sandbox, '/api/workouts', access_token)).status).toBe(403);
  });

  it('checks the token before the content type', async () => {
    const response = await fetch(new URL('/api/nutrition', sandbox.baseUrl), { method: 'POST', body: 'text' });
    expect(response.status).toBe(401);
  });
});
