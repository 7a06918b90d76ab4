import { Router, type Request, type Response } from 'express';
import { clientAddress } from '../web/client-address.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { formFields } from '../web/form-fields.js';
import { flash, flashOnSignIn } from '../web/flash.js';
import { refuseForm, takeDraft } from '../web/form-draft.js';
import { formProblemsOf, type FormProblems } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { forgetEndedSession } from '../web/session.js';
import { renderTooManyAttempts } from '../web/too-many-attempts.js';
import type { UserSessions } from '../web/user-sessions.js';
import { PASSWORD_CHANGE_WORDS, PASSWORD_CONFIRMATION_WORDS } from './account-form-words.js';
import { passwordChangeSchema, passwordConfirmationSchema } from './account.schemas.js';
import type { AccountErasure } from './account-erasure.js';
import type { Accounts, PasswordCheck } from './accounts.js';
import { EMAIL_CHANGE_FORM } from './email-verification.pages.js';
import { changeConnectionMail } from './user.repository.js';
import type { Db } from '../db/database.js';

interface Dependencies {
  db: Db;
  accounts: Accounts;
  erasure: AccountErasure;
  sessions: UserSessions;
  renderPage: RenderPage;
  /** Whether mail is on (SMTP_URL): only then can an address be confirmed or changed. */
  mailOn: boolean;
}

const PASSWORD_CHANGED = 'Password changed. Every other place you were signed in has been signed out.';

const WRONG_PASSWORD = 'That is not your current password.';

const ADDRESS_NOT_CHANGED = 'Your address was not changed:';

/** The two forms that ask for the password: where each is, and what its refusal says first. */
const PASSWORD_FORMS = {
  '/account/password': { page: '/account', view: 'account', title: 'Your account', notDone: 'Your password was not changed:' },
  '/account/delete': {
    page: '/account/delete',
    view: 'delete-account',
    title: 'Delete your account',
    notDone: 'Your account was not deleted:',
  },
} as const;

type PasswordForm = keyof typeof PASSWORD_FORMS;

/** The person's account: their data to download, password, sessions, mails, and deleting it all. */
export function accountPages({ db, accounts, erasure, sessions, renderPage, mailOn }: Dependencies): Router {
  const router = Router();

  /**
   * A password form's page, with the refusal of its form just before (form-draft.ts), said once; the
   * account page's refused change of address too (email-verification.pages.ts), with the address typed.
   */
  function renderForm(req: Request, res: Response, form: PasswordForm) {
    const { view, title, notDone } = PASSWORD_FORMS[form];
    const refused = takeDraft(req, (name) => name === form || (form === '/account/password' && name === EMAIL_CHANGE_FORM));
    if (refused?.form === EMAIL_CHANGE_FORM) {
      const error = `${ADDRESS_NOT_CHANGED} ${refused.problems.all.join(' ')}`;
      return renderPage(req, res, view, {
        title,
        mailOn,
        problems: {},
        emailChange: { values: refused.values, problems: refused.problems.fields },
        error,
      });
    }
    const error = refused && `${notDone} ${refused.problems.all.join(' ')}`;
    renderPage(req, res, view, { title, mailOn, problems: refused?.problems.fields ?? {}, error });
  }

  /** A refused password form: back to its page, with plain words next to the field; nothing typed is kept. */
  function refuse(req: Request, res: Response, form: PasswordForm, problems: FormProblems) {
    refuseForm(req, res, PASSWORD_FORMS[form].page, { form, values: {}, problems });
  }

  function refuseCheck(req: Request, res: Response, form: PasswordForm, check: Exclude<PasswordCheck, { ok: true }>) {
    const { view, title } = PASSWORD_FORMS[form];
    if (check.reason === 'too_many_attempts') {
      return renderTooManyAttempts(renderPage, req, res, { view, data: { title, mailOn, problems: {} } }, check.retryAfterS);
    }
    const field = form === '/account/password' ? 'current_password' : 'password';
    refuse(req, res, form, { fields: { [field]: WRONG_PASSWORD }, all: [WRONG_PASSWORD] });
  }

  router.get('/account', requireUserPage, (req, res) => renderForm(req, res, '/account/password'));
  // Outside /account: whoever sees it is signed out.
  router.get('/account-deleted', (req, res) => renderPage(req, res, 'account-deleted', { title: 'Account deleted' }));

  router.post('/account/password', requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = passwordChangeSchema.safeParse({ current_password: body.current_password, new_password: body.new_password });
    if (!input.success) return refuse(req, res, '/account/password', formProblemsOf(input.error, PASSWORD_CHANGE_WORDS, {}));
    const check = await accounts.changePassword(currentUser(res), input.data, clientAddress(req));
    if (!check.ok) return refuseCheck(req, res, '/account/password', check);
    await sessions.endOthers(req, check.sessionGeneration);
    flash(req, PASSWORD_CHANGED);
    res.redirect(303, '/account');
  });

  router.post('/account/sign-out-everywhere', requireUserPage, async (req, res) => {
    await sessions.endEverywhere(req, res, currentUser(res).id);
    flashOnSignIn(req, res, 'signed_out_everywhere');
    res.redirect(303, '/login');
  });

  router.post('/account/mail', requireUserPage, async (req, res) => {
    await changeConnectionMail(db, currentUser(res).id, formFields(req).connection_mail === 'on');
    flash(req, 'Saved.');
    res.redirect(303, '/account');
  });

  router.get('/account/delete', requireUserPage, (req, res) => renderForm(req, res, '/account/delete'));

  router.post('/account/delete', requireUserPage, async (req, res) => {
    const input = passwordConfirmationSchema.safeParse({ password: formFields(req).password });
    if (!input.success) return refuse(req, res, '/account/delete', formProblemsOf(input.error, PASSWORD_CONFIRMATION_WORDS, {}));
    const user = currentUser(res);
    const check = await accounts.confirmPassword(user, input.data.password, clientAddress(req));
    if (!check.ok) return refuseCheck(req, res, '/account/delete', check);
    await erasure.erase(user);
    forgetEndedSession(req, res);
    res.redirect(303, '/account-deleted');
  });

  return router;
}
