import { Router, type Request, type Response } from 'express';
import { updateConnectionMail } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import type { RenderPage } from '../web/pages.js';
import { UNSUBSCRIBE_PATH, type LinkCheck, type UnsubscribeLinks } from './unsubscribe-link.js';

interface Dependencies {
  db: Db;
  links: UnsubscribeLinks;
  renderPage: RenderPage;
}

/**
 * A connection mail's one-click unsubscribe (RFC 8058), with no sign-in: the link's signature is its
 * authority. A POST to it, as a mail client sends for List-Unsubscribe-Post, turns the person's
 * connection mails off and answers 200; a GET (a person, or a link scanner following the link) only
 * shows a page whose button sends that POST. A link this app did not sign changes nothing and is
 * answered 400 (cut short) or 403 (altered, or signed under a key since dropped).
 */
export function unsubscribeRoutes({ db, links, renderPage }: Dependencies): Router {
  const router = Router();

  function refuse(req: Request, res: Response, check: Extract<LinkCheck, { ok: false }>) {
    renderPage(req, res, 'unsubscribe', { title: 'Link not valid', state: 'invalid' }, check.reason === 'malformed' ? 400 : 403);
  }

  router.get(UNSUBSCRIBE_PATH, (req, res) => {
    const check = links.check(req.query);
    if (!check.ok) return refuse(req, res, check);
    renderPage(req, res, 'unsubscribe', { title: 'Stop these mails?', state: 'asking' });
  });

  router.post(UNSUBSCRIBE_PATH, async (req, res) => {
    const check = links.check(req.query);
    if (!check.ok) return refuse(req, res, check);
    await updateConnectionMail(db, check.userId, false);
    renderPage(req, res, 'unsubscribe', { title: 'Unsubscribed', state: 'done' });
  });

  return router;
}
