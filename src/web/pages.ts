import type { Request, Response } from 'express';
import type { FormProtection } from './csrf.js';
import { takeFlash } from './flash.js';
import type { RenderView } from './views.js';

export type RenderPage = (req: Request, res: Response, view: string, data?: Record<string, unknown>, status?: number) => void;

/**
 * Renders a page with what every page needs: the signed-in user and, for a signed-in user, the
 * form token (their pages have forms, sign-out at least). A signed-out visitor's page gets none
 * unless it has a form and gives one (the sign-in and sign-up pages): viewing pages stores nothing.
 * A confirmation the last form flashed (flash.ts) is shown once, at the top.
 *
 * Error pages too, a refusal's (4xx) included: the person who hit one must still be able to sign
 * out from it. So a refused request may store the form token in a session that had none yet (one
 * signed in through the JSON API); it never replaces one, since csrf-sync reuses the stored token,
 * and forms already open in other tabs keep working.
 */
export function createPageRenderer(render: RenderView, formTokenFor: FormProtection['tokenFor']): RenderPage {
  return (req, res, view, data = {}, status = 200) => {
    const csrfToken = res.locals.user ? formTokenFor(req, res) : undefined;
    res.status(status).send(render(view, { user: res.locals.user, csrfToken, flash: takeFlash(req), ...data }));
  };
}

/** The renderer of pages whose forms are posted signed out (sign-in, sign-up, a forgotten password): each gives its form's token itself. */
export function signedOutFormRenderer(renderPage: RenderPage, formTokenFor: FormProtection['tokenFor']): RenderPage {
  return (req, res, view, data = {}, status) => renderPage(req, res, view, { csrfToken: formTokenFor(req, res), ...data }, status);
}
