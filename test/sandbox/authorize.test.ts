import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  REDIRECT_URI,
  authorizeRequest,
  exchangeCode,
  newPkce,
  readTokens,
  redirectTarget,
  startSandbox,
  type AuthorizeParams,
  type RunningSandbox,
} from './helpers.js';

let sandbox: RunningSandbox;
beforeEach(async () => {
  sandbox = await startSandbox();
});
afterEach(() => sandbox.stop());

describe('GET /api/oauth/authorize with a client or redirect URI it cannot trust', () => {
  it.each<[string, AuthorizeParams, string]>([
    ['an unknown client', { client_id: 'someone-else' }, 'client_id is not a known client'],
    ['no client_id', { client_id: undefined }, 'client_id is missing'],
    ['a repeated client_id', { client_id: ['athlete-sync-demo', 'athlete-sync-demo'] }, 'client_id is missing or repeated'],
    ['an unregistered redirect URI', { redirect_uri: 'https://evil.example/callback' }, 'redirect_uri is not registered'],
    ['a redirect URI that only nearly matches', { redirect_uri: `${REDIRECT_URI}/` }, 'redirect_uri is not registered'],
    ['no redirect URI', { redirect_uri: undefined }, 'redirect_uri is missing'],
    ['a repeated redirect URI', { redirect_uri: [REDIRECT_URI, REDIRECT_URI] }, 'redirect_uri is missing or repeated'],
  ])('shows an error page and never redirects for %s', async (_case, params, message) => {
    const response = await authorizeRequest(sandbox, params);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain(message);
  });
});

describe('GET /api/oauth/authorize with a trusted redirect URI but a bad request', () => {
  it.each<[string, AuthorizeParams, string]>([
    ['a repeated parameter', { scope: ['profile:read', 'profile:read'] }, 'invalid_request'],
    ['no response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'nutrition:write calendar:read' }, 'invalid_scope'],
    ['an empty scope', { scope: '' }, 'invalid_scope'],
    ['no scope', { scope: undefined }, 'invalid_scope'],
    ['scopes separated by two spaces', { scope: 'profile:read  workout:read' }, 'invalid_scope'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['a code_challenge too short', { code_challenge: 'a'.repeat(42) }, 'invalid_request'],
    ['a padded code_challenge', { code_challenge: `${'a'.repeat(43)}=` }, 'invalid_request'],
    ['a code_challenge in plain base64', { code_challenge: `${'a'.repeat(42)}+` }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['a lower-case s256 method', { code_challenge_method: 's256' }, 'invalid_request'],
  ])('redirects with an error and the state for %s', async (_case, params, error) => {
    const target = redirectTarget(await authorizeRequest(sandbox, { state: 'keep-me', ...params }));
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
    expect(target.searchParams.get('error')).toBe(error);
    expect(target.searchParams.get('error_description')).toBeTruthy();
    expect(target.searchParams.get('state')).toBe('keep-me');
    expect(target.searchParams.has('code')).toBe(false);
  });

  it('redirects with invalid_request and no state when the state is missing', async () => {
    const target = redirectTarget(await authorizeRequest(sandbox, { state: undefined }));
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toContain('state');
    expect(target.searchParams.has('state')).toBe(false);
  });

  it('ignores parameters it does not know (RFC 6749 §3.1)', async () => {
    const target = redirectTarget(await authorizeRequest(sandbox, { prompt: 'consent' }));
    expect(target.searchParams.get('code')).toMatch(/^sbx_code_/);
  });
});

describe('the issuer (RFC 9207)', () => {
  it('is named, as the base URL, in the redirect back with a code', async () => {
    const target = redirectTarget(await authorizeRequest(sandbox));
    expect(target.searchParams.get('code')).toMatch(/^sbx_code_/);
    expect(target.searchParams.get('iss')).toBe(sandbox.baseUrl);
  });

  it('is named in the redirect back with an error too', async () => {
    const target = redirectTarget(await authorizeRequest(sandbox, { response_type: 'token' }));
    expect(target.searchParams.get('error')).toBe('unsupported_response_type');
    expect(target.searchParams.get('iss')).toBe(sandbox.baseUrl);
  });
});

describe('redirect URIs', () => {
  it('keeps the query a registered redirect URI already has', async () => {
    const registered = 'http://localhost:3000/oauth/callback?tenant=7';
    await sandbox.stop();
    sandbox = await startSandbox({ redirectUris: [registered] });
    const target = redirectTarget(await authorizeRequest(sandbox, { redirect_uri: registered }));
    expect(target.searchParams.get('tenant')).toBe('7');
    expect(target.searchParams.get('code')).toMatch(/^sbx_code_/);
  });
});

describe('withheld scopes', () => {
  it('grants fewer scopes than asked and says so in the token response', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ withheldScopes: ['nutrition:write'] });
    const pkce = newPkce();
    const target = redirectTarget(
      await authorizeRequest(sandbox, { scope: 'health:write nutrition:write', code_challenge: pkce.challenge }),
    );
    const tokens = await readTokens(await exchangeCode(sandbox, { code: target.searchParams.get('code') ?? '', verifier: pkce.verifier }));
    expect(tokens.scope).toBe('health:write');
  });

  it('tells the athlete on the consent page which scopes will not be granted', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ autoApprove: null, withheldScopes: ['nutrition:write'] });
    const page = await (await authorizeRequest(sandbox, { scope: 'health:write nutrition:write' })).text();
    const [granted, withheld] = page.split('not granted by this sandbox');
    expect(granted).toContain('health:write');
    expect(granted).not.toContain('nutrition:write');
    expect(withheld).toContain('nutrition:write');
  });

  it('refuses with invalid_scope when every asked scope is withheld', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ withheldScopes: ['nutrition:write'] });
    const target = redirectTarget(await authorizeRequest(sandbox, { scope: 'nutrition:write' }));
    expect(target.searchParams.get('error')).toBe('invalid_scope');
  });
});
