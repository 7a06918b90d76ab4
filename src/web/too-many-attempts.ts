import type { Request, Response } from 'express';
import type { RenderPage } from './pages.js';

export function tooManyAttemptsMessage(retryAfterS: number): string {
  const minutes = Math.ceil(retryAfterS / 60);
  return `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** 429 with Retry-After (RFC 9110 §10.2.3) for the JSON API. */
export function sendTooManyAttempts(res: Response, retryAfterS: number): void {
  res
    .set('Retry-After', String(retryAfterS))
    .status(429)
    .json({ error: 'too_many_attempts', message: tooManyAttemptsMessage(retryAfterS) });
}

/** 429 with Retry-After as a page: the form again, with a plain sentence. */
export function renderTooManyAttempts(
  renderPage: RenderPage,
  req: Request,
  res: Response,
  page: { view: string; data: Record<string, unknown> },
  retryAfterS: number,
): void {
  res.set('Retry-After', String(retryAfterS));
  renderPage(req, res, page.view, { ...page.data, error: tooManyAttemptsMessage(retryAfterS) }, 429);
}
