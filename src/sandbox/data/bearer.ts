import type { Request, RequestHandler } from 'express';
import { isoTime } from '../clock.js';
import { ApiError } from '../http/api-error.js';
import { checkAccessToken } from '../oauth/tokens.js';
import type { ScopeName } from '../oauth/scopes.js';
import type { SandboxRuntime } from '../runtime.js';
import { athleteNamed, type Athlete, type Grant } from '../state.js';

const REALM = 'athlete-data';
/** RFC 6750 §2.1: `Bearer` then a b64token. */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** Who a data request acts for: the athlete of the token's grant. */
export interface Access {
  athlete: Athlete;
  grant: Grant;
}

export interface BearerAuth {
  /** Lets the request through only with a valid access token holding this scope. */
  requireScope(scope: ScopeName): RequestHandler;
  /** The access established by `requireScope` for this request. */
  accessOf(req: Request): Access;
}

/** Bearer token authentication of the data endpoints (section 5 step 4, RFC 6750 §3). */
export function createBearerAuth(runtime: SandboxRuntime): BearerAuth {
  const accessByRequest = new WeakMap<Request, Access>();
  return {
    requireScope: (scope) => (req, _res, next) => {
      accessByRequest.set(req, authenticate(runtime, req.get('Authorization'), scope));
      next();
    },
    accessOf: (req) => {
      const access = accessByRequest.get(req);
      if (access === undefined) throw new Error(`no requireScope before the handler of ${req.method} ${req.path}`);
      return access;
    },
  };
}

function authenticate(runtime: SandboxRuntime, authorization: string | undefined, scope: ScopeName): Access {
  const token = authorization?.match(BEARER_CREDENTIALS)?.[1];
  // RFC 6750 §3.1: a request without credentials gets a challenge with no error code.
  if (token === undefined) throw bearerError(401, 'unauthorized', 'send Authorization: Bearer <access token>', {});
  const access = checkAccessToken(runtime, token);
  if (!access.ok) {
    throw bearerError(401, 'invalid_token', access.problem, { error: 'invalid_token', error_description: access.problem });
  }
  if (!access.scopes.includes(scope) || runtime.settings.withdrawnScopes.includes(scope)) {
    const description = `the access token lacks the scope ${scope}`;
    throw bearerError(403, 'insufficient_scope', description, { error: 'insufficient_scope', scope });
  }
  const athlete = athleteNamed(runtime.state, access.grant.athlete, isoTime(runtime.clock.now()));
  return { athlete, grant: access.grant };
}

function bearerError(status: number, code: string, description: string, challenge: Record<string, string>): ApiError {
  const params = Object.entries({ realm: REALM, ...challenge }).map(([name, value]) => `${name}="${value}"`);
  return new ApiError(status, code, description, { headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}` } });
}
