import type { RequestHandler, Response } from 'express';
import { findUserById } from '../accounts/user.repository.js';
import type { User } from '../accounts/user.table.js';
import type { Db } from '../db/database.js';
import { ENDED_BY_NOTICE, flashOnSignIn } from './flash.js';
import { signInAddressFor } from './return-to.js';
import { endStaleSession } from './session.js';

/**
 * The signed-in user, loaded once per request into res.locals (undefined when signed out). A
 * session signs its person in only while its generation is still theirs: every session of the person
 * ends when the generation moves on (a new password, sign out everywhere), however the session was
 * kept or written back since; and with the account (no user). Such a session is ended here.
 *
 * A session from before generations were kept has none: it is ended too, since one that a password
 * change had ended and a request under way wrote back cannot be told apart from one still valid.
 */
export function loadCurrentUser(db: Db): RequestHandler {
  return async (req, res, next) => {
    const { userId, sessionGeneration, endedBy } = req.session;
    const user = userId === undefined ? undefined : await findUserById(db, userId);
    const signedIn = user !== undefined && user.session_generation === sessionGeneration;
    res.locals.user = signedIn ? user : undefined;
    if ((userId !== undefined && !signedIn) || endedBy !== undefined) {
      // Why, when it is known: left in its place by user-sessions.ts, or, for one written back since, the person's last reason.
      const why = endedBy ?? (sessionGeneration === undefined ? undefined : user?.sessions_ended_by);
      if (why) flashOnSignIn(req, res, ENDED_BY_NOTICE[why]);
      await endStaleSession(req);
    }
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
