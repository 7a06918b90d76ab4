import type { Request, Response } from 'express';
import { flash } from './flash.js';

declare module 'express-session' {
  interface SessionData {
    /** Items this session deleted lately, by their address: the page each was on, and what was said then. */
    deletedItems: Record<string, { page: string; said: string }>;
  }
}

/** Enough for the Back button through a few deletes in a row. */
const KEPT = 20;

/**
 * After deleting an item, where its addresses lead from then on: Back to its confirmation page
 * shows the page the item was on, saying it was deleted, rather than a page saying it does not exist.
 */
export function rememberDeleted(req: Request, item: string, deleted: { page: string; said: string }): void {
  const kept = Object.entries(req.session.deletedItems ?? {}).filter(([address]) => address !== item);
  req.session.deletedItems = Object.fromEntries([...kept.slice(-(KEPT - 1)), [item, deleted]]);
}

/** Sends the browser to the page of an item this session deleted, saying so once; false for any other item. */
export function redirectIfDeleted(req: Request, res: Response, item: string): boolean {
  const deleted = req.session.deletedItems?.[item];
  if (deleted === undefined) return false;
  flash(req, deleted.said);
  res.redirect(303, deleted.page);
  return true;
}
