import { Router } from 'express';
import { clientAddress } from '../web/client-address.js';
import { describeInvalidFields } from '../web/invalid-input.js';
import type { FormProtection } from '../web/csrf.js';
import type { RenderPage } from '../web/pages.js';
import { sameSitePath } from '../web/return-to.js';
import { renderTooManyAttempts } from '../web/too-many-attempts.js';
import { signInSchema, signUpSchema } from './account.schemas.js';
import type { Accounts } from './accounts.js';
import type { UserSessions } from '../web/user-sessions.js';

interface Dependencies {
  accounts: Accounts;
  sessions: UserSessions;
  renderPage: RenderPage;
  /** The forms' token, which these two pages give a signed-out visitor too. */
  formTokenFor: FormProtection['tokenFor'];
  clock: () => Date;
}

/** Sign up, sign in and sign out, as HTML forms. */
export function signInPages({ accounts, sessions, renderPage: renderAnyPage, formTokenFor, clock }: Dependencies): Router {
  const router = Router();
  // Their forms are posted signed out: each page gives its form's token itself.
  const renderPage: RenderPage = (req, res, view, data = {}, status) =>
    renderAnyPage(req, res, view, { csrfToken: formTokenFor(req, res), ...data }, status);

  router.get('/signup', (req, res) => renderPage(req, res, 'signup', { title: 'Sign up' }));
  router.post('/signup', async (req, res) => {
    const body = req.body ?? {};
    const form = { title: 'Sign up', email: body.email, timezone: body.timezone };
    const input = signUpSchema.safeParse(body);
    if (!input.success) return renderPage(req, res, 'signup', { ...form, error: describeInvalidFields(input.error).message }, 400);
    const result = await accounts.signUp(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view: 'signup', data: form }, result.retryAfterS);
    }
    if (!result.ok) return renderPage(req, res, 'signup', { ...form, error: 'An account with this email already exists.' }, 409);
    await sessions.start(req, result.user.id, clock());
    res.redirect(303, '/');
  });

  router.get('/login', (req, res) => renderPage(req, res, 'login', { title: 'Sign in', next: sameSitePath(req.query.next) }));
  router.post('/login', async (req, res) => {
    const body = req.body ?? {};
    const next = sameSitePath(body.next);
    const form = { title: 'Sign in', email: body.email, next };
    const input = signInSchema.safeParse(body);
    const result = input.success ? await accounts.signIn(input.data, clientAddress(req)) : undefined;
    if (result?.ok === false && result.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view: 'login', data: form }, result.retryAfterS);
    }
    if (!result?.ok) return renderPage(req, res, 'login', { ...form, error: 'Wrong email or password.' }, 401);
    await sessions.start(req, result.user.id, clock());
    res.redirect(303, next ?? '/');
  });

  router.post('/logout', async (req, res) => {
    await sessions.end(req, res);
    res.redirect(303, '/login');
  });

  return router;
}
