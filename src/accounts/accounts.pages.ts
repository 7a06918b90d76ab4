import { Router } from 'express';
import type { Db } from '../db/database.js';
import { describeInvalidFields } from '../web/invalid-input.js';
import type { RenderPage } from '../web/pages.js';
import { endSession, startUserSession } from '../web/session.js';
import { signInSchema, signUpSchema } from './account.schemas.js';
import { signIn, signUp } from './accounts.js';

interface Dependencies {
  db: Db;
  renderPage: RenderPage;
  clock: () => Date;
}

/** Sign up, sign in and sign out, as HTML forms. */
export function accountPages({ db, renderPage, clock }: Dependencies): Router {
  const router = Router();

  router.get('/signup', (req, res) => renderPage(req, res, 'signup', { title: 'Sign up' }));
  router.post('/signup', async (req, res) => {
    const body = req.body ?? {};
    const form = { title: 'Sign up', email: body.email, timezone: body.timezone };
    const input = signUpSchema.safeParse(body);
    if (!input.success) return renderPage(req, res, 'signup', { ...form, error: describeInvalidFields(input.error).message }, 400);
    const result = await signUp(db, input.data, clock());
    if (!result.ok) return renderPage(req, res, 'signup', { ...form, error: 'An account with this email already exists.' }, 409);
    await startUserSession(req, result.user.id, clock());
    res.redirect(303, '/');
  });

  router.get('/login', (req, res) => renderPage(req, res, 'login', { title: 'Sign in' }));
  router.post('/login', async (req, res) => {
    const body = req.body ?? {};
    const form = { title: 'Sign in', email: body.email };
    const input = signInSchema.safeParse(body);
    const user = input.success ? await signIn(db, input.data) : undefined;
    if (!user) return renderPage(req, res, 'login', { ...form, error: 'Wrong email or password.' }, 401);
    await startUserSession(req, user.id, clock());
    res.redirect(303, '/');
  });

  router.post('/logout', async (req, res) => {
    await endSession(req, res);
    res.redirect(303, '/login');
  });

  return router;
}
