import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { clientAddress } from '../web/client-address.js';
import { flash } from '../web/flash.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf, type FormWords } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { sameSitePath } from '../web/return-to.js';
import { renderTooManyAttempts, tooManyAttemptsMessage } from '../web/too-many-attempts.js';
import { VERIFY_EMAIL_PATH, lifetimeWords } from './account-mails.js';
import { emailSchema } from './account.schemas.js';
import type { Accounts } from './accounts.js';
import type { EmailVerification, LinkRequest } from './email-verification.js';

interface Dependencies {
  accounts: Pick<Accounts, 'confirmPassword'>;
  verification: EmailVerification;
  renderPage: RenderPage;
  /** How long a link works, for the pages to say. */
  linkLifetimeMs: number;
}

const emailChangeSchema = z.object({ email: emailSchema, password: z.string({ error: 'is required' }).max(1024) });
const EMAIL_CHANGE_WORDS: FormWords = {
  fields: {
    email: { label: 'New email address', input: 'email', expected: 'must be an email address, such as ana@example.com' },
    password: { label: 'Your password', input: 'password' },
  },
};

/** The account page, where the address is changed: only shown with mail on. */
const ACCOUNT_PAGE = { view: 'account', data: { title: 'Your account', mailOn: true } };

/** Confirming the account's address by the link mailed there, asking for that link again, and changing the address. */
export function emailVerificationPages({ accounts, verification, renderPage, linkLifetimeMs }: Dependencies): Router {
  const router = Router();
  const lifetime = lifetimeWords(linkLifetimeMs);

  /** What asking for a link did, said on the page the person came from. */
  function said(request: LinkRequest, mailedTo: string): string {
    if (request.ok) return `We mailed a link to ${mailedTo}. It works once, for ${lifetime}.`;
    switch (request.reason) {
      case 'too_many_attempts':
        return tooManyAttemptsMessage(request.retryAfterS);
      case 'already_verified':
        return 'Your address is already confirmed.';
      case 'email_taken':
        return 'That address is already yours or another account’s: nothing was changed.';
      case 'mail_off':
        return 'This app has no mail server set up, so it cannot mail a link.';
    }
  }

  function renderAccountError(req: Request, res: Response, error: string, status: number) {
    renderPage(req, res, ACCOUNT_PAGE.view, { ...ACCOUNT_PAGE.data, error }, status);
  }

  // Opened from the mail, signed in or not: the link is its own authority.
  router.get(VERIFY_EMAIL_PATH, async (req, res) => {
    const confirmation = await verification.confirm(req.query.link);
    const title = confirmation.ok ? 'Address confirmed' : 'Address not confirmed';
    if (confirmation.ok) return renderPage(req, res, 'email-link', { title, outcome: confirmation.outcome, email: confirmation.email });
    const status = confirmation.reason === 'invalid' ? 404 : confirmation.reason === 'email_taken' ? 409 : 410;
    renderPage(req, res, 'email-link', { title, refused: confirmation.reason, lifetime }, status);
  });

  router.post('/account/email/link', requireUserPage, async (req, res) => {
    const user = currentUser(res);
    const request = await verification.sendLink(user);
    flash(req, said(request, user.email));
    res.redirect(303, sameSitePath(formFields(req).next) ?? '/');
  });

  router.post('/account/email', requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = emailChangeSchema.safeParse(body);
    if (!input.success) return renderAccountError(req, res, formProblemsOf(input.error, EMAIL_CHANGE_WORDS, {}).all.join(' '), 400);
    const user = currentUser(res);
    const check = await accounts.confirmPassword(user, input.data.password, clientAddress(req));
    if (!check.ok && check.reason === 'too_many_attempts')
      return renderTooManyAttempts(renderPage, req, res, ACCOUNT_PAGE, check.retryAfterS);
    if (!check.ok) return renderAccountError(req, res, 'That is not your current password.', 403);
    const request = await verification.requestChange(user, input.data.email);
    if (!request.ok && request.reason === 'too_many_attempts')
      return renderTooManyAttempts(renderPage, req, res, ACCOUNT_PAGE, request.retryAfterS);
    if (!request.ok) return renderAccountError(req, res, said(request, input.data.email), 409);
    flash(req, `${said(request, input.data.email)} Your account keeps ${user.email} until you open it.`);
    res.redirect(303, '/account');
  });

  return router;
}
