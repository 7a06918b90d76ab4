import type { Request, Response } from 'express';
import { z } from 'zod';
import type { SessionsEndedBy } from '../accounts/user.table.js';

declare module 'express-session' {
  interface SessionData {
    /** What the last change did, in words, for the next page shown (post/redirect/get). */
    flash: string;
  }
}

/**
 * Keeps a confirmation of what a form just did for the page it redirects to, which shows it once
 * (pages.ts): a reload or the Back button does not say it again. Only a signed-in person's forms
 * flash, so there is always a session to keep it in.
 */
export function flash(req: Request, message: string): void {
  req.session.flash = message;
}

/** The confirmation kept for this page, removed as it is read. */
export function takeFlash(req: Request): string | undefined {
  const message = req.session?.flash;
  if (message !== undefined) delete req.session.flash;
  return message;
}

/**
 * What the sign-in page says once to someone just signed out, and why. Whoever sees it is signed
 * out, with no session to keep it in (a signed-out visitor stores nothing): so it travels in a
 * short-lived cookie holding one of these keys, dropped as the page reads it.
 */
const SIGN_IN_NOTICES = {
  signed_out: 'You are signed out.',
  signed_out_everywhere: 'You are signed out everywhere: on every browser and device where you were signed in.',
  password_changed: 'You were signed out because your password was changed on another browser or device. Sign in with the new password.',
  form_waiting: 'You had been signed out, so what you sent was not saved: sign in, and it is back on its page to save again.',
  signed_out_elsewhere: 'You were signed out because “Sign out everywhere” was chosen on another browser or device.',
} as const;

export type SignInNotice = keyof typeof SIGN_IN_NOTICES;

export const SIGN_IN_NOTICE_COOKIE = 'athlete_sync_notice';
const SIGN_IN_NOTICE_LIFETIME_MS = 10 * 60 * 1000;
const signInNoticeSchema = z.enum(Object.keys(SIGN_IN_NOTICES) as [SignInNotice, ...SignInNotice[]]);

/** Why another session ended this one, as its person is told on the sign-in page. */
export const ENDED_BY_NOTICE: Record<SessionsEndedBy, SignInNotice> = {
  password_changed: 'password_changed',
  signed_out_everywhere: 'signed_out_elsewhere',
};

export function flashOnSignIn(req: Request, res: Response, notice: SignInNotice): void {
  res.cookie(SIGN_IN_NOTICE_COOKIE, notice, cookieOptions(req, SIGN_IN_NOTICE_LIFETIME_MS));
  // For this request's own page, when it is the sign-in page: the cookie comes back only with the next.
  res.locals.signInNotice = notice;
}

/** The sign-in page's notice, removed as it is read; req.cookies is filled by the forms' cookie parser (csrf.ts). */
export function takeSignInNotice(req: Request, res: Response): string | undefined {
  const cookies: unknown = req.cookies;
  const kept: unknown =
    res.locals.signInNotice ??
    (typeof cookies === 'object' && cookies !== null ? (cookies as Record<string, unknown>)[SIGN_IN_NOTICE_COOKIE] : undefined);
  if (kept === undefined) return undefined;
  res.clearCookie(SIGN_IN_NOTICE_COOKIE, cookieOptions(req));
  const notice = signInNoticeSchema.safeParse(kept);
  return notice.success ? SIGN_IN_NOTICES[notice.data] : undefined;
}

function cookieOptions(req: Request, maxAge?: number) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: req.secure, path: '/', ...(maxAge !== undefined && { maxAge }) };
}
