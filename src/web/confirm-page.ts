import type { Request, Response } from 'express';
import type { RenderPage } from './pages.js';

/** What a confirmation page asks: the heading is the question, `confirm` the button that does it. */
export interface Confirmation {
  heading: string;
  lines: string[];
  /** Where the confirming form posts, with these hidden fields besides the form token. */
  action: string;
  fields?: Record<string, string>;
  confirm: string;
  /** Where Cancel goes back to. */
  cancel: string;
}

/**
 * The step before a change that cannot be undone: the page's Delete or Disconnect is a link here,
 * and only this page's form posts the change.
 */
export function renderConfirmation(renderPage: RenderPage, req: Request, res: Response, confirmation: Confirmation): void {
  renderPage(req, res, 'confirm', { title: confirmation.heading, ...confirmation });
}
