import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Response } from 'express';
import { effectiveStatus, reconnectReason } from '../connections/connection-health.js';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { clientAddress } from '../web/client-address.js';
import { sendInvalidInput } from '../web/invalid-input.js';
import { forgetEndedSession } from '../web/session.js';
import { sendTooManyAttempts } from '../web/too-many-attempts.js';
import type { UserSessions } from '../web/user-sessions.js';
import {
  connectionMailSchema,
  forgotPasswordSchema,
  passwordChangeSchema,
  passwordConfirmationSchema,
  signInSchema,
  signUpSchema,
} from './account.schemas.js';
import type { AccountErasure } from './account-erasure.js';
import { accountExport } from './account-export.js';
import type { Accounts, PasswordCheck } from './accounts.js';
import type { EmailVerification } from './email-verification.js';
import type { PasswordReset } from './password-reset.js';
import { changeConnectionMail } from './user.repository.js';
import type { User } from './user.table.js';

interface Dependencies {
  db: Db;
  accounts: Accounts;
  verification: EmailVerification;
  passwordReset: PasswordReset;
  erasure: AccountErasure;
  sessions: UserSessions;
  clock: () => Date;
}

/**
 * POST /api/logout: 204, the session ended. It reads no body, so app.ts mounts it before the JSON
 * API's content-type guard: a sign-out sent with an empty form or a text body is still a sign-out.
 */
export function signOutApi({ sessions }: { sessions: UserSessions }): Router {
  const router = Router();
  router.post('/api/logout', async (req, res) => {
    await sessions.end(req, res);
    res.status(204).end();
  });
  return router;
}

/** The JSON API for scripts and mobile clients: the same accounts and session cookie as the pages. */
export function accountApi({ db, accounts, verification, passwordReset, erasure, sessions, clock }: Dependencies): Router {
  const router = Router();

  async function sendAccount(res: Response, user: User, status = 200) {
    const connection = await findConnection(db, user.id);
    res.status(status).json({
      email: user.email,
      emailVerified: user.email_verified_at !== null,
      timezone: user.timezone,
      connectionMail: user.connection_mail === 1,
      connection: connection
        ? { status: effectiveStatus(connection, clock()), reason: reconnectReason(connection, clock()), scopes: connection.scopes }
        : null,
    });
  }

  /** A refused password is 403 (the person is signed in, but this is not their password), counted like a failed sign-in. */
  function sendRefusal(res: Response, check: Exclude<PasswordCheck, { ok: true }>) {
    if (check.reason === 'too_many_attempts') return sendTooManyAttempts(res, check.retryAfterS);
    res.status(403).json({ error: 'wrong_password', message: 'That is not your current password.' });
  }

  router.post('/api/signup', async (req, res) => {
    const input = signUpSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const result = await accounts.signUp(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') return sendTooManyAttempts(res, result.retryAfterS);
    if (!result.ok) return res.status(409).json({ error: 'email_taken', message: 'An account with this email already exists.' });
    await sessions.start(req, result.user, clock());
    await sendAccount(res, result.user, 201);
  });

  router.post('/api/login', async (req, res) => {
    const input = signInSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const result = await accounts.signIn(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') return sendTooManyAttempts(res, result.retryAfterS);
    if (!result.ok) return res.status(401).json({ error: 'invalid_credentials', message: 'Wrong email or password.' });
    await sessions.start(req, result.user, clock());
    await sendAccount(res, result.user);
  });

  /** The same answer, after the same work, whether or not an account has the address (password-reset.ts). */
  router.post('/api/password/forgot', async (req, res) => {
    const input = forgotPasswordSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const request = await passwordReset.request(input.data.email, clientAddress(req));
    if (!request.ok && request.reason === 'too_many_attempts') return sendTooManyAttempts(res, request.retryAfterS);
    if (!request.ok) return res.status(503).json({ error: 'mail_off', message: 'This app has no mail server set up.' });
    res.status(202).json({ message: 'If an account has this address, a link to set a new password is on its way there.' });
  });

  router.post('/api/account/email/link', requireUserApi, async (_req, res) => {
    const request = await verification.sendLink(currentUser(res));
    if (request.ok) return res.status(202).end();
    if (request.reason === 'too_many_attempts') return sendTooManyAttempts(res, request.retryAfterS);
    if (request.reason === 'mail_off') return res.status(503).json({ error: 'mail_off', message: 'This app has no mail server set up.' });
    res.status(409).json({ error: 'already_verified', message: 'Your address is already confirmed.' });
  });

  router.get('/api/me', requireUserApi, async (_req, res) => {
    await sendAccount(res, currentUser(res));
  });

  router.get('/api/account/export', requireUserApi, async (_req, res) => {
    const now = clock();
    res.type('application/json').attachment(`athlete-sync-export-${now.toISOString().slice(0, 10)}.json`);
    await pipeline(Readable.from(accountExport(db, currentUser(res), now)), res);
  });

  router.patch('/api/account', requireUserApi, async (req, res) => {
    const input = connectionMailSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const user = currentUser(res);
    await changeConnectionMail(db, user.id, input.data.connectionMail);
    await sendAccount(res, { ...user, connection_mail: input.data.connectionMail ? 1 : 0 });
  });

  /** Every other session of the person ends; this one continues under a new session id. */
  router.post('/api/account/password', requireUserApi, async (req, res) => {
    const input = passwordChangeSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const check = await accounts.changePassword(currentUser(res), input.data, clientAddress(req));
    if (!check.ok) return sendRefusal(res, check);
    await sessions.endOthers(req, check.sessionGeneration);
    res.status(204).end();
  });

  router.post('/api/account/logout-everywhere', requireUserApi, async (req, res) => {
    await sessions.endEverywhere(req, res, currentUser(res).id);
    res.status(204).end();
  });

  router.delete('/api/account', requireUserApi, async (req, res) => {
    const input = passwordConfirmationSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const user = currentUser(res);
    const check = await accounts.confirmPassword(user, input.data.password, clientAddress(req));
    if (!check.ok) return sendRefusal(res, check);
    await erasure.erase(user);
    forgetEndedSession(req, res);
    res.status(204).end();
  });

  return router;
}
