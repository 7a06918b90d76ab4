import type { RequestHandler, Response } from 'express';
import { findUserById } from '../accounts/user.repository.js';
import type { User } from '../accounts/user.table.js';
import type { Db } from '../db/database.js';
import { signInAddressFor } from './return-to.js';

/** The signed-in user, loaded once per request into res.locals (undefined when signed out). */
export function loadCurrentUser(db: Db): RequestHandler {
  return async (req, res, next) => {
    const userId = req.session.userId;
    res.locals.user = userId === undefined ? undefined : await findUserById(db, userId);
    next();
  };
}

export function currentUser(res: Response): User {
  const user = res.locals.user as User | undefined;
  if (!user) throw new Error('currentUser() used on a route that does not require a signed-in user');
  return user;
}

/** Pages send a signed-out person to sign in, and back to the page after; the API answers 401. */
export const requireUserPage: RequestHandler = (req, res, next) => {
  if (res.locals.user) return next();
  res.redirect(303, signInAddressFor(req));
};

export const requireUserApi: RequestHandler = (_req, res, next) => {
  if (res.locals.user) return next();
  sendSignInFirst(res);
};

/** The API's answer without a signed-in person: none, or one whose account was deleted while the request ran. */
export function sendSignInFirst(res: Response): void {
  res.status(401).json({ error: 'unauthenticated', message: 'Sign in first.' });
}
