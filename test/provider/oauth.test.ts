import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { createOAuthClient, type OAuthSettings } from '../../src/provider/oauth.js';
import { classifyTokenRequestError, serviceWords } from '../../src/provider/token-errors.js';
import { useNock } from '../helpers/nock.js';

const BASE_URL = 'https://athlete.test';
const settings: OAuthSettings = {
  baseUrl: BASE_URL,
  clientId: 'client-1',
  clientSecret: 'secret-1',
  scopes: ['nutrition:write', 'health:write'],
  redirectUri: 'https://app.test/oauth/callback',
  tokenRequestEncoding: 'json',
  timeoutS: 5,
};
const now = new Date('2026-11-21T12:00:00Z');
const client = createOAuthClient(settings, () => now);

useNock();

async function exchange() {
  const attempt = await client.startAuthorization();
  const callback = new URL(`${settings.redirectUri}?code=the-code&state=${attempt.state}`);
  return client.exchangeCode(callback, attempt);
}

async function exchangeFailure() {
  return exchange().then(
    () => {
      throw new Error('expected the exchange to fail');
    },
    (error: unknown) => classifyTokenRequestError(error),
  );
}

describe('the authorization URL', () => {
  it('carries every parameter of section 4.1, with an S256 challenge', async () => {
    const { url, state } = await client.startAuthorization();
    expect(url.origin + url.pathname).toBe(`${BASE_URL}/api/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'https://app.test/oauth/callback',
      scope: 'nutrition:write health:write',
      state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
  });
});

describe('the code exchange', () => {
  it('posts the fields of section 4.2 as JSON and reads the token response of section 2.1', async () => {
    let sent: unknown;
    nock(BASE_URL)
      .post('/api/oauth/token', (body) => ((sent = body), true))
      .matchHeader('content-type', 'application/json')
      .reply(200, {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'rt',
        scope: 'nutrition:write',
        refresh_token_expires_in: 86400,
      });
    const tokens = await exchange();
    expect(sent).toEqual({
      grant_type: 'authorization_code',
      client_id: 'client-1',
      client_secret: 'secret-1',
      code: 'the-code',
      redirect_uri: 'https://app.test/oauth/callback',
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43,128}$/),
    });
    expect(tokens).toEqual({
      accessToken: 'at',
      refreshToken: 'rt',
      issuedAt: now,
      expiresAt: new Date('2026-11-21T13:00:00Z'),
      refreshExpiresAt: new Date('2026-11-22T12:00:00Z'),
      scopes: ['nutrition:write'],
    });
  });

  it('takes the requested scopes when the response names none (RFC 6749 §5.1)', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(200, { access_token: 'at', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt' });
    expect((await exchange()).scopes).toEqual(['nutrition:write', 'health:write']);
  });

  it('refuses a callback whose state is not the pending one, before any request', async () => {
    const attempt = await client.startAuthorization();
    const callback = new URL(`${settings.redirectUri}?code=c&state=forged`);
    await expect(client.exchangeCode(callback, attempt)).rejects.toThrow();
  });
});

describe('classifying a failed token request', () => {
  it('invalid_grant: the grant is gone, reconnecting is needed', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(400, { error: 'invalid_grant', error_description: 'code used' });
    expect(await exchangeFailure()).toEqual({ kind: 'needs-reconnect', error: 'invalid_grant', description: 'code used' });
  });

  it('another OAuth error is permanent and keeps the service message', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(401, { error: 'invalid_client', error_description: 'bad secret' });
    expect(await exchangeFailure()).toEqual({ kind: 'permanent', status: 401, error: 'invalid_client', description: 'bad secret' });
  });

  it.each([500, 502, 503, 429])('HTTP %i without an OAuth body is retryable', async (status) => {
    nock(BASE_URL).post('/api/oauth/token').reply(status, '<html>busy</html>', { 'content-type': 'text/html' });
    expect(await exchangeFailure()).toMatchObject({ kind: 'retryable', status });
  });

  it('a reset connection is retryable', async () => {
    nock(BASE_URL).post('/api/oauth/token').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    expect(await exchangeFailure()).toMatchObject({ kind: 'retryable', status: undefined });
  });

  it('a request that times out got no answer: retryable, so the same refresh token may be presented again', async () => {
    nock(BASE_URL).post('/api/oauth/token').delay(1000).reply(200, { access_token: 'at', token_type: 'Bearer', expires_in: 60 });
    const impatient = createOAuthClient({ ...settings, timeoutS: 0.1 }, () => now);
    const timedOut = await impatient.refresh('rt', ['nutrition:write']).then(
      () => {
        throw new Error('expected the refresh to time out');
      },
      (error: unknown) => error,
    );
    expect(timedOut).toMatchObject({ name: 'ClientError', code: 'OAUTH_TIMEOUT', cause: { name: 'TimeoutError' } });
    expect(classifyTokenRequestError(timedOut)).toMatchObject({ kind: 'retryable', status: undefined });
  });

  it('a 200 that is not a token response is permanent', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(200, { hello: 'world' });
    expect(await exchangeFailure()).toMatchObject({ kind: 'permanent', status: undefined });
  });

  it('a token response that breaks section 2.1 (expires_in missing) is permanent', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(200, { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt' });
    expect(await exchangeFailure()).toMatchObject({ kind: 'permanent', status: undefined });
  });

  it('a 404 is permanent', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(404, 'not here');
    expect(await exchangeFailure()).toMatchObject({ kind: 'permanent', status: 404 });
  });
});

describe('what a failed token request shows the person', () => {
  it("the service's OAuth error code and description", async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(401, { error: 'invalid_client', error_description: 'bad secret' });
    expect(serviceWords(await exchangeFailure())).toBe('invalid_client: bad secret');
  });

  it('nothing of an answer that is not a token response: the exception text is for the log', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(200, { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt' });
    const failure = await exchangeFailure();
    expect(serviceWords(failure)).toBeUndefined();
    expect(failure).toMatchObject({ reason: expect.stringContaining('Error') });
  });

  it('nothing when there was no answer', async () => {
    nock(BASE_URL).post('/api/oauth/token').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    expect(serviceWords(await exchangeFailure())).toBeUndefined();
  });
});

describe('a 429 from the token endpoint', () => {
  it('is retryable after its Retry-After', async () => {
    nock(BASE_URL).post('/api/oauth/token').reply(429, { error: 'slow_down' }, { 'retry-after': '12' });
    expect(await exchangeFailure()).toMatchObject({ kind: 'retryable', status: 429, retryAfterMs: 12_000 });
  });
});
