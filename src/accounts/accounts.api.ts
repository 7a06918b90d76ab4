import { Router, type Response } from 'express';
import { effectiveStatus, reconnectReason } from '../connections/connection-health.js';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { clientAddress } from '../web/client-address.js';
import { sendInvalidInput } from '../web/invalid-input.js';
import { endSession, startUserSession } from '../web/session.js';
import { sendTooManyAttempts } from '../web/too-many-attempts.js';
import { signInSchema, signUpSchema } from './account.schemas.js';
import type { Accounts } from './accounts.js';
import type { User } from './user.table.js';

interface Dependencies {
  db: Db;
  accounts: Accounts;
  clock: () => Date;
}

/**
 * POST /api/logout: 204, the session ended. It reads no body, so app.ts mounts it before the JSON
 * API's content-type guard: a sign-out sent with an empty form or a text body is still a sign-out.
 */
export function signOutApi(): Router {
  const router = Router();
  router.post('/api/logout', async (req, res) => {
    await endSession(req, res);
    res.status(204).end();
  });
  return router;
}

/** The JSON API for scripts and mobile clients: the same accounts and session cookie as the pages. */
export function accountApi({ db, accounts, clock }: Dependencies): Router {
  const router = Router();

  async function sendAccount(res: Response, user: User, status = 200) {
    const connection = await findConnection(db, user.id);
    res.status(status).json({
      email: user.email,
      timezone: user.timezone,
      connection: connection
        ? { status: effectiveStatus(connection, clock()), reason: reconnectReason(connection, clock()), scopes: connection.scopes }
        : null,
    });
  }

  router.post('/api/signup', async (req, res) => {
    const input = signUpSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const result = await accounts.signUp(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') return sendTooManyAttempts(res, result.retryAfterS);
    if (!result.ok) return res.status(409).json({ error: 'email_taken', message: 'An account with this email already exists.' });
    await startUserSession(req, result.user.id, clock());
    await sendAccount(res, result.user, 201);
  });

  router.post('/api/login', async (req, res) => {
    const input = signInSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const result = await accounts.signIn(input.data, clientAddress(req));
    if (!result.ok && result.reason === 'too_many_attempts') return sendTooManyAttempts(res, result.retryAfterS);
    if (!result.ok) return res.status(401).json({ error: 'invalid_credentials', message: 'Wrong email or password.' });
    await startUserSession(req, result.user.id, clock());
    await sendAccount(res, result.user);
  });

  router.get('/api/me', requireUserApi, async (_req, res) => {
    await sendAccount(res, currentUser(res));
  });

  return router;
}
