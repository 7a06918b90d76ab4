import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { clientAddress } from '../web/client-address.js';
import { flash } from '../web/flash.js';
import { formFields } from '../web/form-fields.js';
import { refuseForm } from '../web/form-draft.js';
import { formProblemsOf, type FormProblems, type FormWords } from '../web/form-problems.js';
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

/** The form that changes the address, refused back to the account page like its other forms (form-draft.ts, account.pages.ts). */
export const EMAIL_CHANGE_FORM = '/account/email';

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

  /** A refused change of address: back to the account page, the address typed kept (never the password), the problem next to its field. */
  function refuseChange(req: Request, res: Response, email: unknown, problems: FormProblems) {
    refuseForm(req, res, '/account#email', {
      form: EMAIL_CHANGE_FORM,
      values: { email: typeof email === 'string' ? email : '' },
      problems,
    });
  }
  const problemOf = (field: string, sentence: string): FormProblems => ({ fields: { [field]: sentence }, all: [sentence] });

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

  router.post(EMAIL_CHANGE_FORM, requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = emailChangeSchema.safeParse(body);
    if (!input.success) return refuseChange(req, res, body.email, formProblemsOf(input.error, EMAIL_CHANGE_WORDS, {}));
    const user = currentUser(res);
    const check = await accounts.confirmPassword(user, input.data.password, clientAddress(req));
    if (!check.ok && check.reason === 'too_many_attempts')
      return renderTooManyAttempts(renderPage, req, res, ACCOUNT_PAGE, check.retryAfterS);
    if (!check.ok) return refuseChange(req, res, body.email, problemOf('password', 'That is not your current password.'));
    const request = await verification.requestChange(user, input.data.email);
    if (!request.ok && request.reason === 'too_many_attempts')
      return renderTooManyAttempts(renderPage, req, res, ACCOUNT_PAGE, request.retryAfterS);
    if (!request.ok && request.reason === 'email_taken') {
      return refuseChange(req, res, body.email, problemOf('email', 'That address is already yours or another account’s.'));
    }
    if (!request.ok) return refuseChange(req, res, body.email, problemOf('email', said(request, input.data.email)));
    flash(req, `${said(request, input.data.email)} Your account keeps ${user.email} until you open it.`);
    res.redirect(303, '/account');
  });

  return router;
}
