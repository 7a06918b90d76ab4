import type { Request, Response } from 'express';
import { z } from 'zod';
import { formFields } from './form-fields.js';
import type { FormProblems } from './form-problems.js';

declare module 'express-session' {
  interface SessionData {
    /** A refused form, for the page its POST redirects to. */
    formDraft: FormDraft;
  }
}

/** A refused form: which one (named by the path it posts to), what was typed into it (never a password), and every problem in plain words. */
export interface FormDraft {
  form: string;
  values: Record<string, string>;
  problems: FormProblems;
}

/**
 * Post/Redirect/Get for a refused form too: what was typed and what is wrong with it are kept in
 * the session, and the browser is sent to the form's page, which shows them once (takeDraft). So
 * Back and reload show a page, never the browser's question whether to send the form again. Only a
 * signed-in person's forms are refused this way: the sign-in and sign-up pages have no session to
 * keep a draft in, and answer the refused form itself.
 */
export function refuseForm(req: Request, res: Response, page: string, draft: FormDraft): void {
  req.session.formDraft = draft;
  res.redirect(303, page);
}

/** The refused form kept for this page, removed as it is read; `form` names the forms the page shows. */
export function takeDraft(req: Request, form: (name: string) => boolean): FormDraft | undefined {
  const draft = req.session.formDraft;
  if (draft === undefined) return undefined;
  delete req.session.formDraft;
  return form(draft.form) ? draft : undefined;
}

/** Where a form sent after its session ended waits, as typed, for its person to sign in again. */
export const WAITING_DRAFT_COOKIE = 'athlete_sync_draft';
const WAITING_DRAFT_LIFETIME_MS = 30 * 60 * 1000;
/** Well under a browser's 4 KB for a cookie; a longer form is not kept. */
const WAITING_DRAFT_MOST_CHARACTERS = 3000;
const SESSION_ENDED = 'You had been signed out, so this was not saved: check it and save it again.';

const waitingDraftSchema = z.object({
  form: z.string().max(200),
  values: z.record(z.string(), z.string()),
});

/**
 * A form posted by someone whose session ended while its page was open (it was idle too long, a
 * new password or sign out everywhere ended it, the app's Redis was emptied): its token is refused,
 * since nobody is signed in to check it against. Rather than an error page that loses what was
 * typed, it is kept (never a password) in a cookie of this browser until sign-in, which leads back
 * to the form's page with it (restoreWaitingDraft). Nothing of it is done before then.
 */
export function keepDraftUntilSignIn(req: Request, res: Response): void {
  const values = Object.fromEntries(
    Object.entries(formFields(req)).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== '_csrf' && !entry[0].includes('password'),
    ),
  );
  const kept = JSON.stringify({ form: req.path, values });
  if (kept.length <= WAITING_DRAFT_MOST_CHARACTERS) {
    res.cookie(WAITING_DRAFT_COOKIE, kept, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: '/',
      maxAge: WAITING_DRAFT_LIFETIME_MS,
    });
  }
}

/** After sign-in: the form kept until then becomes the draft its page shows, with why it was not saved. */
export function restoreWaitingDraft(req: Request, res: Response): void {
  const cookies: unknown = req.cookies;
  const kept = typeof cookies === 'object' && cookies !== null ? (cookies as Record<string, unknown>)[WAITING_DRAFT_COOKIE] : undefined;
  if (typeof kept !== 'string') return;
  res.clearCookie(WAITING_DRAFT_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
  const draft = waitingDraftSchema.safeParse(parsedJson(kept));
  if (draft.success) req.session.formDraft = { ...draft.data, problems: { fields: {}, all: [SESSION_ENDED] } };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
