import { setTimeout as sleep } from 'node:timers/promises';
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { injectFaults } from '../faults.js';
import { ApiError } from '../http/api-error.js';
import { jsonBody } from '../http/json-body.js';
import { parseBody } from '../http/parse-body.js';
import type { SandboxRuntime } from '../runtime.js';
import { sameSecret } from '../secrets.js';
import type { Settings } from '../settings.js';
import { redeemAuthorizationCode } from './codes.js';
import { codeVerifierSchema } from './pkce.js';
import { refreshGrant } from './refresh.js';
import type { TokenResponse } from './tokens.js';

const jsonObjectSchema = z.record(z.string(), z.unknown(), { error: 'expected a JSON object' });
const clientCredentialsSchema = z.object({ client_id: z.string(), client_secret: z.string() });
const grantTypeSchema = z.object({ grant_type: z.string() });
const authorizationCodeSchema = z.object({
  code: z.string().min(1),
  redirect_uri: z.string().min(1),
  code_verifier: codeVerifierSchema,
});
const refreshTokenSchema = z.object({ refresh_token: z.string().min(1), scope: z.string().optional() });

/** RFC 6749 §5.1: token responses, errors included, must not be cached. */
const preventCaching: RequestHandler = (_req, res, next) => {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  next();
};

/** POST /api/oauth/token (section 4.2): JSON only, client authenticated by client_id and client_secret in the body. */
export function tokenRoutes(runtime: SandboxRuntime): Router {
  const router = Router();
  router.post('/api/oauth/token', preventCaching, injectFaults(runtime, 'token'), jsonBody, async (req, res) => {
    const body = parseBody(jsonObjectSchema, req.body);
    const clientId = authenticateClient(body, runtime.settings);
    const { grant_type } = parseBody(grantTypeSchema, body);
    let tokens: ReturnType<typeof exchange>;
    try {
      tokens = exchange(runtime, clientId, grant_type, body);
    } finally {
      // Already applied, and answered only after the delay, a refusal too: a client that gives up or
      // dies while the answer is held loses these tokens.
      await sleep(runtime.settings.tokenDelayMs);
    }
    res.json(tokens);
  });
  return router;
}

function authenticateClient(body: Record<string, unknown>, settings: Settings): string {
  const credentials = clientCredentialsSchema.safeParse(body);
  const authenticated =
    credentials.success &&
    credentials.data.client_id === settings.clientId &&
    sameSecret(credentials.data.client_secret, settings.clientSecret);
  if (!authenticated) throw new ApiError(401, 'invalid_client', 'client authentication failed');
  return settings.clientId;
}

function exchange(runtime: SandboxRuntime, clientId: string, grantType: string, body: Record<string, unknown>): TokenResponse {
  switch (grantType) {
    case 'authorization_code': {
      const { code, redirect_uri, code_verifier } = parseBody(authorizationCodeSchema, body);
      return redeemAuthorizationCode(runtime, { clientId, code, redirectUri: redirect_uri, codeVerifier: code_verifier });
    }
    case 'refresh_token': {
      const { refresh_token, scope } = parseBody(refreshTokenSchema, body);
      return refreshGrant(runtime, { clientId, refreshToken: refresh_token, scope });
    }
    default:
      throw new ApiError(400, 'unsupported_grant_type', `grant_type "${grantType}" is not supported`);
  }
}
