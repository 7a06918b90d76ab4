import { Router } from 'express';
import { clientAddress } from '../web/client-address.js';
import type { FormProtection } from '../web/csrf.js';
import { flashOnSignIn, takeSignInNotice } from '../web/flash.js';
import { restoreWaitingDraft } from '../web/form-draft.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf, type FormProblems } from '../web/form-problems.js';
import { signedOutFormRenderer, type RenderPage } from '../web/pages.js';
import { sameSitePath } from '../web/return-to.js';
import { renderTooManyAttempts } from '../web/too-many-attempts.js';
import { SIGN_UP_WORDS } from './account-form-words.js';
import { signInSchema, signUpSchema } from './account.schemas.js';
import type { Accounts } from './accounts.js';
import type { UserSessions } from '../web/user-sessions.js';
import { timeZoneNames } from './time-zone.js';

interface Dependencies {
  accounts: Accounts;
  sessions: UserSessions;
  renderPage: RenderPage;
  /** The forms' token, which these two pages give a signed-out visitor too. */
  formTokenFor: FormProtection['tokenFor'];
  clock: () => Date;
}

const EMAIL_TAKEN: FormProblems = {
  fields: { email: 'An account with this email already exists: sign in instead, or use another email.' },
  all: ['An account with this email already exists.'],
};

/** What was typed into the sign-up form, to show it again (never the password). */
function typedSignUp(body: Record<string, unknown>): Record<'email' | 'password' | 'timezone', string> {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { email: text(body.email), password: text(body.password), timezone: text(body.timezone) };
}

function signUpPage({ email, timezone }: Record<'email' | 'timezone', string>, problems?: FormProblems) {
  return {
    title: 'Sign up',
    email,
    timezone,
    zones: timeZoneNames(),
    problems: problems?.fields ?? {},
    error: problems && `You are not signed up yet. ${problems.all.join(' ')}`,
  };
}

/** Sign up, sign in and sign out, as HTML forms. */
export function signInPages({ accounts, sessions, renderPage: renderAnyPage, formTokenFor, clock }: Dependencies): Router {
  const router = Router();
  const renderPage = signedOutFormRenderer(renderAnyPage, formTokenFor);

  router.get('/signup', (req, res) => renderPage(req, res, 'signup', signUpPage(typedSignUp({}))));
  router.post('/signup', async (req, res) => {
    const body = formFields(req);
    const typed = typedSignUp(body);
    const input = signUpSchema.safeParse(body);
    if (!input.success) return renderPage(req, res, 'signup', signUpPage(typed, formProblemsOf(input.error, SIGN_UP_WORDS, typed)), 400);
    const result = await accounts.signUp(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view: 'signup', data: signUpPage(typed) }, result.retryAfterS);
    }
    if (!result.ok) return renderPage(req, res, 'signup', signUpPage(typed, EMAIL_TAKEN), 409);
    await sessions.start(req, result.user, clock());
    res.redirect(303, '/');
  });

  router.get('/login', (req, res) => {
    const notice = takeSignInNotice(req, res);
    renderPage(req, res, 'login', { title: 'Sign in', next: sameSitePath(req.query.next), ...(notice !== undefined && { flash: notice }) });
  });
  router.post('/login', async (req, res) => {
    const body = formFields(req);
    const next = sameSitePath(body.next);
    const form = { title: 'Sign in', email: body.email, next };
    const input = signInSchema.safeParse(body);
    const result = input.success ? await accounts.signIn(input.data, clientAddress(req)) : undefined;
    if (result?.ok === false && result.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view: 'login', data: form }, result.retryAfterS);
    }
    if (!result?.ok) return renderPage(req, res, 'login', { ...form, error: 'Wrong email or password.' }, 401);
    await sessions.start(req, result.user, clock());
    restoreWaitingDraft(req, res);
    res.redirect(303, next ?? '/');
  });

  router.post('/logout', async (req, res) => {
    await sessions.end(req, res);
    flashOnSignIn(req, res, 'signed_out');
    res.redirect(303, '/login');
  });

  return router;
}
