import type { Request } from 'express';

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
