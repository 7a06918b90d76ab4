import { Router, type Request, type Response } from 'express';
import { clientAddress } from '../web/client-address.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { formFields } from '../web/form-fields.js';
import { describeInvalidFields } from '../web/invalid-input.js';
import type { RenderPage } from '../web/pages.js';
import { forgetEndedSession } from '../web/session.js';
import { renderTooManyAttempts } from '../web/too-many-attempts.js';
import type { UserSessions } from '../web/user-sessions.js';
import { passwordChangeSchema, passwordConfirmationSchema } from './account.schemas.js';
import type { AccountErasure } from './account-erasure.js';
import type { Accounts, PasswordCheck } from './accounts.js';
import { changeConnectionMail } from './user.repository.js';
import type { Db } from '../db/database.js';

interface Dependencies {
  db: Db;
  accounts: Accounts;
  erasure: AccountErasure;
  sessions: UserSessions;
  renderPage: RenderPage;
}

/** Notices handed over by redirecting to `/account?notice=<key>`; only these keys are shown. */
const NOTICES: Record<string, string> = {
  password_changed: 'Password changed. Every other place you were signed in has been signed out.',
  mail_saved: 'Saved.',
};

const WRONG_PASSWORD = 'That is not your current password.';

/** The person's account: their data to download, password, sessions, mails, and deleting it all. */
export function accountPages({ db, accounts, erasure, sessions, renderPage }: Dependencies): Router {
  const router = Router();

  function renderAccount(req: Request, res: Response, extra: Record<string, unknown> = {}, status = 200) {
    const notice = typeof req.query.notice === 'string' ? NOTICES[req.query.notice] : undefined;
    renderPage(req, res, 'account', { title: 'Your account', notice, ...extra }, status);
  }

  /** A refused password: the form again, with a plain sentence. */
  function renderRefusal(req: Request, res: Response, view: 'account' | 'delete-account', check: Exclude<PasswordCheck, { ok: true }>) {
    const page = { view, data: { title: view === 'account' ? 'Your account' : 'Delete your account' } };
    if (check.reason === 'too_many_attempts') return renderTooManyAttempts(renderPage, req, res, page, check.retryAfterS);
    renderPage(req, res, view, { ...page.data, error: WRONG_PASSWORD }, 403);
  }

  router.get('/account', requireUserPage, (req, res) => renderAccount(req, res));
  // Outside /account: whoever sees it is signed out.
  router.get('/account-deleted', (req, res) => renderPage(req, res, 'account-deleted', { title: 'Account deleted' }));

  router.post('/account/password', requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = passwordChangeSchema.safeParse({ current_password: body.current_password, new_password: body.new_password });
    if (!input.success) return renderAccount(req, res, { error: describeInvalidFields(input.error).message }, 400);
    const check = await accounts.changePassword(currentUser(res), input.data, clientAddress(req));
    if (!check.ok) return renderRefusal(req, res, 'account', check);
    await sessions.endOthers(req, check.sessionGeneration);
    res.redirect(303, '/account?notice=password_changed');
  });

  router.post('/account/sign-out-everywhere', requireUserPage, async (req, res) => {
    await sessions.endEverywhere(req, res, currentUser(res).id);
    res.redirect(303, '/login');
  });

  router.post('/account/mail', requireUserPage, async (req, res) => {
    await changeConnectionMail(db, currentUser(res).id, formFields(req).connection_mail === 'on');
    res.redirect(303, '/account?notice=mail_saved');
  });

  router.get('/account/delete', requireUserPage, (req, res) => renderPage(req, res, 'delete-account', { title: 'Delete your account' }));

  router.post('/account/delete', requireUserPage, async (req, res) => {
    const input = passwordConfirmationSchema.safeParse({ password: formFields(req).password });
    if (!input.success) {
      return renderPage(
        req,
        res,
        'delete-account',
        { title: 'Delete your account', error: describeInvalidFields(input.error).message },
        400,
      );
    }
    const user = currentUser(res);
    const check = await accounts.confirmPassword(user, input.data.password, clientAddress(req));
    if (!check.ok) return renderRefusal(req, res, 'delete-account', check);
    await erasure.erase(user);
    forgetEndedSession(req, res);
    res.redirect(303, '/account-deleted');
  });

  return router;
}
