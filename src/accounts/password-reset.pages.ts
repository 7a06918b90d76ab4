import { Router, type Request, type Response } from 'express';
import { clientAddress } from '../web/client-address.js';
import type { FormProtection } from '../web/csrf.js';
import { flash } from '../web/flash.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf, type FormWords } from '../web/form-problems.js';
import { signedOutFormRenderer, type RenderPage } from '../web/pages.js';
import { renderTooManyAttempts } from '../web/too-many-attempts.js';
import type { UserSessions } from '../web/user-sessions.js';
import { z } from 'zod';
import { emailSchema, passwordSchema } from './account.schemas.js';
import { RESET_PASSWORD_PATH, lifetimeWords } from './account-mails.js';
import type { AttemptLimits } from './attempt-limits.js';
import type { LinkRefusal } from './email-links.js';
import type { PasswordReset } from './password-reset.js';

interface Dependencies {
  passwordReset: PasswordReset;
  sessions: UserSessions;
  attemptLimits: Pick<AttemptLimits, 'signInSucceeded'>;
  renderPage: RenderPage;
  formTokenFor: FormProtection['tokenFor'];
  /** How long a link works, for the pages to say. */
  linkLifetimeMs: number;
  clock: () => Date;
}

const FORGOT_PASSWORD_PATH = '/password/forgot';
const NOT_AN_EMAIL = 'Email: type the address you sign in with, such as ana@example.com.';

const newPasswordSchema = z.object({ new_password: passwordSchema });
const NEW_PASSWORD_WORDS: FormWords = { fields: { new_password: { label: 'New password', input: 'new_password' } } };

/** A link that does nothing: 410 once used or past its lifetime, 404 for one that names no link. */
const REFUSAL_STATUS: Record<LinkRefusal, number> = { used: 410, expired: 410, invalid: 404 };

/** "Forgot your password?": ask for a link by mail, then set a new password with it. */
export function passwordResetPages({
  passwordReset,
  sessions,
  attemptLimits,
  renderPage: renderAnyPage,
  formTokenFor,
  linkLifetimeMs,
  clock,
}: Dependencies): Router {
  const router = Router();
  const renderPage = signedOutFormRenderer(renderAnyPage, formTokenFor);
  const lifetime = lifetimeWords(linkLifetimeMs);
  const title = 'Set a new password';

  function renderRefusal(req: Request, res: Response, refused: LinkRefusal) {
    renderPage(req, res, 'reset-password', { title, refused, lifetime }, REFUSAL_STATUS[refused]);
  }

  router.get(FORGOT_PASSWORD_PATH, (req, res) => renderPage(req, res, 'forgot-password', { title }));

  router.post(FORGOT_PASSWORD_PATH, async (req, res) => {
    const typed = formFields(req).email;
    const input = emailSchema.safeParse(typed);
    const form = { title, email: typeof typed === 'string' ? typed : '' };
    if (!input.success) return renderPage(req, res, 'forgot-password', { ...form, error: NOT_AN_EMAIL }, 400);
    const request = await passwordReset.request(input.data, clientAddress(req));
    if (!request.ok && request.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view: 'forgot-password', data: form }, request.retryAfterS);
    }
    if (!request.ok) return renderPage(req, res, 'forgot-password', { ...form, state: 'mail_off' }, 503);
    renderPage(req, res, 'forgot-password', { title, email: input.data, state: 'sent', lifetime });
  });

  router.get(RESET_PASSWORD_PATH, async (req, res) => {
    const state = await passwordReset.check(req.query.link);
    if (!state.ok) return renderRefusal(req, res, state.reason);
    renderPage(req, res, 'reset-password', { title, link: req.query.link, email: state.link.email });
  });

  router.post(RESET_PASSWORD_PATH, async (req, res) => {
    const body = formFields(req);
    const input = newPasswordSchema.safeParse(body);
    if (!input.success) {
      const state = await passwordReset.check(body.link);
      if (!state.ok) return renderRefusal(req, res, state.reason);
      const error = formProblemsOf(input.error, NEW_PASSWORD_WORDS, {}).all.join(' ');
      return renderPage(req, res, 'reset-password', { title, link: body.link, email: state.link.email, error }, 400);
    }
    const reset = await passwordReset.reset(body.link, input.data.new_password);
    if (!reset.ok) return renderRefusal(req, res, reset.reason);
    await sessions.endAll(reset.user.id);
    await attemptLimits.signInSucceeded(reset.user.email, clientAddress(req));
    await sessions.start(req, reset.user, clock());
    flash(req, 'Your new password is set, and you are signed in. Every other place you were signed in has been signed out.');
    res.redirect(303, '/');
  });

  return router;
}
