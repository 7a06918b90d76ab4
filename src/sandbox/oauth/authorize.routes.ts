import { randomBytes } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { SandboxRuntime } from '../runtime.js';
import type { Views } from '../views.js';
import { checkAuthorizeQuery, type AuthorizationRequest, type AuthorizeErrorCode } from './authorize-request.js';
import { issueAuthorizationCode } from './codes.js';
import { SCOPE_DESCRIPTIONS, type ScopeName } from './scopes.js';

const DECISION_PATH = '/api/oauth/authorize/decision';

const decisionFormSchema = z.object({
  request_id: z.string(),
  decision: z.enum(['approve', 'deny']),
  athlete: z.string().default(''),
});

/** GET /api/oauth/authorize (section 4.1) and the consent page's decision. */
export function authorizeRoutes(runtime: SandboxRuntime, views: Views): Router {
  const router = Router();

  router.get('/api/oauth/authorize', (req, res) => {
    const outcome = checkAuthorizeQuery(req.query, runtime.settings);
    switch (outcome.kind) {
      case 'error_page':
        return showErrorPage(res, views, outcome.description);
      case 'redirect_error': {
        const { redirectUri, error, description, state } = outcome;
        return res.redirect(callbackUrl(redirectUri, issuer(req), { error, error_description: description, state }));
      }
      case 'valid': {
        const { autoApprove } = runtime.settings;
        if (autoApprove !== null) return res.redirect(approve(runtime, outcome.request, autoApprove, issuer(req)));
        // The request waits server-side; the page carries only an unguessable id for it.
        const requestId = randomBytes(24).toString('base64url');
        runtime.state.pendingAuthorizations.set(requestId, outcome.request);
        return showConsentPage(res, views, runtime, { requestId, request: outcome.request }, null);
      }
    }
  });

  router.post(DECISION_PATH, express.urlencoded({ extended: false }), (req, res) => {
    const form = decisionFormSchema.safeParse(req.body);
    if (!form.success) return showErrorPage(res, views, 'The consent form was incomplete.');
    const { request_id: requestId, decision, athlete } = form.data;
    const decided = runtime.state.decidedAuthorizations.get(requestId);
    if (decided !== undefined) {
      // RFC 6749 §4.1.2.1: the client is known and trusted, so the problem goes back to it with the state.
      return sendBackWithError(req, res, decided, 'invalid_request', 'this authorization request was already decided');
    }
    const request = runtime.state.pendingAuthorizations.get(requestId);
    if (request === undefined) return showUnknownRequestPage(res, views, runtime);
    if (decision === 'approve' && athlete.trim() === '') {
      const problem = 'Choose an athlete or type a new name.';
      return showConsentPage(res.status(400), views, runtime, { requestId, request }, problem);
    }
    runtime.state.pendingAuthorizations.delete(requestId);
    runtime.state.decidedAuthorizations.set(requestId, request);
    if (decision === 'deny') return sendBackWithError(req, res, request, 'access_denied', 'the athlete denied access');
    return res.redirect(303, approve(runtime, request, athlete.trim(), issuer(req)));
  });

  return router;
}

/** Sends the browser back to the client with an RFC 6749 §4.1.2.1 error; 303 turns the form's POST into a GET. */
function sendBackWithError(
  req: Request,
  res: Response,
  request: AuthorizationRequest,
  error: AuthorizeErrorCode | 'access_denied',
  description: string,
): void {
  const params = { error, error_description: description, state: request.state };
  res.redirect(303, callbackUrl(request.redirectUri, issuer(req), params));
}

function approve(runtime: SandboxRuntime, request: AuthorizationRequest, athleteName: string, iss: string): string {
  const code = issueAuthorizationCode(runtime, request, athleteName);
  return callbackUrl(request.redirectUri, iss, { code, state: request.state });
}

/**
 * The sandbox's issuer identifier is its base URL. It may listen on any port and knows no address
 * of its own, so this is the one the browser reached it at: the base URL the client configured.
 */
function issuer(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

/**
 * RFC 6749 §4.1.2: parameters are added to the registered URI, keeping any query it already has;
 * RFC 9207 §2: with the issuer, so the client can tell which server answered, error or not.
 */
function callbackUrl(redirectUri: string, iss: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

function showErrorPage(res: Response, views: Views, description: string): void {
  res
    .status(400)
    .type('html')
    .send(views.error({ description, applications: [] }));
}

/**
 * A decision for a request this sandbox does not know (it restarted, or the id was made up): it
 * cannot tell which client or state it was for, so it offers the registered applications instead.
 */
function showUnknownRequestPage(res: Response, views: Views, runtime: SandboxRuntime): void {
  const applications = [...new Set(runtime.settings.redirectUris.map((uri) => new URL(uri).origin))];
  res
    .status(400)
    .type('html')
    .send(views.error({ description: 'This authorization request is unknown to the sandbox.', applications }));
}

function showConsentPage(
  res: Response,
  views: Views,
  runtime: SandboxRuntime,
  { requestId, request }: { requestId: string; request: AuthorizationRequest },
  problem: string | null,
): void {
  res.type('html').send(
    views.consent({
      decisionPath: DECISION_PATH,
      clientId: request.clientId,
      requestId,
      scopes: request.scopes.map(describeScope),
      withheldScopes: request.withheldScopes.map(describeScope),
      athletes: [...runtime.state.athletes.keys()],
      problem,
    }),
  );
}

function describeScope(name: ScopeName): { name: ScopeName; description: string } {
  return { name, description: SCOPE_DESCRIPTIONS[name] };
}
