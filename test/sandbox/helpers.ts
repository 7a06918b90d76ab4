import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createSandbox } from '../../src/sandbox/app.js';
import type { Clock } from '../../src/sandbox/clock.js';
import type { SandboxRuntime } from '../../src/sandbox/runtime.js';
import { DEFAULT_SETTINGS, settingsSchema, type Settings } from '../../src/sandbox/settings.js';

/** A clock that moves only when told, so lifetimes can be tested without sleeping. */
export interface ManualClock extends Clock {
  advanceSeconds(seconds: number): void;
}

export function manualClock(start = Date.parse('2026-03-01T08:00:00Z')): ManualClock {
  let now = start;
  return {
    now: () => now,
    advanceSeconds: (seconds) => {
      now += seconds * 1000;
    },
  };
}

export interface RunningSandbox {
  baseUrl: string;
  runtime: SandboxRuntime;
  clock: ManualClock;
  settings: Settings;
  stop(): Promise<void>;
}

/**
 * A sandbox on a free port of 127.0.0.1 with a manual clock. Unless told otherwise it approves
 * authorization requests at once as athlete "Ada", so tests get tokens without the consent page.
 */
export async function startSandbox(overrides: Partial<Settings> = {}, logger?: Logger): Promise<RunningSandbox> {
  const settings = settingsSchema.parse({ ...DEFAULT_SETTINGS, logLevel: 'silent', autoApprove: 'Ada', ...overrides });
  const clock = manualClock();
  const { app, runtime } = createSandbox({ settings, clock, logger });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('sandbox has no TCP address');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    runtime,
    clock,
    settings,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const REDIRECT_URI = DEFAULT_SETTINGS.redirectUris[0] ?? '';
export const ALL_SCOPES = 'profile:read workout:read workout:write health:write nutrition:write profile:write';

export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type AuthorizeParams = Record<string, string | string[] | undefined>;

/** GET /api/oauth/authorize with valid parameters, some replaced (a list repeats one, undefined drops one). */
export function authorizeRequest(sandbox: RunningSandbox, params: AuthorizeParams = {}): Promise<Response> {
  const url = new URL('/api/oauth/authorize', sandbox.baseUrl);
  const all: AuthorizeParams = {
    response_type: 'code',
    client_id: DEFAULT_SETTINGS.clientId,
    redirect_uri: REDIRECT_URI,
    scope: ALL_SCOPES,
    state: 'state-123',
    code_challenge: newPkce().challenge,
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) {
    for (const one of [value ?? []].flat()) url.searchParams.append(name, one);
  }
  return fetch(url, { redirect: 'manual' });
}

/** The redirect's target, failing when the answer is not a redirect. */
export function redirectTarget(response: Response): URL {
  const location = response.headers.get('location');
  if (response.status < 300 || response.status > 399 || location === null) {
    throw new Error(`expected a redirect, got ${response.status}`);
  }
  return new URL(location);
}

/** Authorize (auto-approved) and return the code with the verifier that goes with it. */
export async function obtainCode(sandbox: RunningSandbox, scope = ALL_SCOPES): Promise<{ code: string; verifier: string }> {
  const pkce = newPkce();
  const response = await authorizeRequest(sandbox, { scope, code_challenge: pkce.challenge });
  const code = redirectTarget(response).searchParams.get('code');
  if (code === null) throw new Error('no code in the redirect');
  return { code, verifier: pkce.verifier };
}

export function postToken(sandbox: RunningSandbox, body: Record<string, unknown>): Promise<Response> {
  return fetch(new URL('/api/oauth/token', sandbox.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_id: DEFAULT_SETTINGS.clientId,
      client_secret: DEFAULT_SETTINGS.clientSecret,
      ...body,
    }),
  });
}

export function exchangeCode(
  sandbox: RunningSandbox,
  { code, verifier }: { code: string; verifier: string },
  overrides: Record<string, unknown> = {},
): Promise<Response> {
  return postToken(sandbox, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    ...overrides,
  });
}

export function refreshWith(sandbox: RunningSandbox, refreshToken: string): Promise<Response> {
  return postToken(sandbox, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** Section 2.1, exactly: no field beyond the table. */
export const tokenResponseSchema = z.strictObject({
  access_token: z.string().startsWith('sbx_at_'),
  token_type: z.literal('Bearer'),
  expires_in: z.int(),
  refresh_token: z.string().startsWith('sbx_rt_').optional(),
  scope: z.string(),
  refresh_token_expires_in: z.int().optional(),
});

export type TokenSet = z.infer<typeof tokenResponseSchema>;

export async function readTokens(response: Response): Promise<TokenSet> {
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return tokenResponseSchema.parse(await response.json());
}

/** The whole dance: authorize, auto-approve, exchange the code. */
export async function obtainTokens(sandbox: RunningSandbox, scope = ALL_SCOPES): Promise<TokenSet & { refresh_token: string }> {
  const tokens = await readTokens(await exchangeCode(sandbox, await obtainCode(sandbox, scope)));
  if (tokens.refresh_token === undefined) throw new Error('no refresh token in the first token response');
  return { ...tokens, refresh_token: tokens.refresh_token };
}

export function postJson(sandbox: RunningSandbox, path: string, body: unknown, accessToken?: string): Promise<Response> {
  return fetch(new URL(path, sandbox.baseUrl), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }),
    },
    body: JSON.stringify(body),
  });
}

export function getWithToken(sandbox: RunningSandbox, path: string, accessToken: string): Promise<Response> {
  return fetch(new URL(path, sandbox.baseUrl), { headers: { Authorization: `Bearer ${accessToken}` } });
}

export interface UploadParts {
  file?: Uint8Array;
  name?: string;
  metadata?: string;
}

export function uploadFit(sandbox: RunningSandbox, accessToken: string, parts: UploadParts): Promise<Response> {
  const form = new FormData();
  if (parts.file !== undefined) form.append('file', new Blob([parts.file]), 'activity.fit');
  if (parts.name !== undefined) form.append('name', parts.name);
  if (parts.metadata !== undefined) form.append('metadata', parts.metadata);
  return fetch(new URL('/api/workouts/upload-fit', sandbox.baseUrl), {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}` },
    body: form,
  });
}

export async function readState(sandbox: RunningSandbox): Promise<unknown> {
  const response = await fetch(new URL('/_sandbox/state', sandbox.baseUrl));
  if (response.status !== 200) throw new Error(`state request failed: ${response.status}`);
  return response.json();
}

export async function changeSettings(sandbox: RunningSandbox, patch: Record<string, unknown>): Promise<Response> {
  return fetch(new URL('/_sandbox/settings', sandbox.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(patch),
  });
}
