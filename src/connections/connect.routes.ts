import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { OAuthClient } from '../provider/oauth.js';
import type { TokenSet } from '../provider/token-set.js';
import { classifyTokenRequestError, serviceWords } from '../provider/token-errors.js';
import { dropQueuedEntries, resumeWaitingEntries } from '../sync/connection-changes.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import type { RenderPage } from '../web/pages.js';
import { renewUserSession, saveSession } from '../web/session.js';
import { deleteConnection, saveConnection } from './connection.repository.js';
import { addPendingConnect, claimState, takePendingConnect } from './pending-connects.js';
import type { TokenCipher } from './token-crypto.js';

interface Dependencies {
  db: Db;
  redis: Redis;
  redisPrefix: string;
  oauth: OAuthClient;
  cipher: TokenCipher;
  syncQueue: Queue;
  /** The registered redirect URI; the callback's URL is rebuilt on it for the code exchange. */
  redirectUri: string;
  renderPage: RenderPage;
  logger: Logger;
  clock: () => Date;
}

/**
 * The callback's query (section 4.1; RFC 6749 §4.1.2 and §4.1.2.1). Each key at most once:
 * a repeated key arrives as an array and fails the parse. `iss`, when sent, must be the service's
 * issuer, for errors too (RFC 9207 §2.4: an answer from another authorization server is a mix-up
 * attack); the document does not promise it, so it may be absent. It goes on to openid-client,
 * which checks it again.
 */
function callbackQuerySchema(issuer: string) {
  const iss = z.literal(issuer).optional();
  return z.union([
    z.object({ state: z.string().min(1), code: z.string().min(1), iss }),
    z.object({ state: z.string().min(1), error: z.string().min(1), error_description: z.string().optional(), iss }),
  ]);
}

/** Connect (OAuth authorization code flow with PKCE), its callback, and Disconnect. */
export function connectRoutes(deps: Dependencies): Router {
  const { db, redis, redisPrefix, oauth, cipher, syncQueue, redirectUri, renderPage, logger, clock } = deps;
  const router = Router();
  const log = logger.child({ module: 'connect' });
  const callbackQuery = callbackQuerySchema(oauth.issuer);

  function showProblem(req: Request, res: Response, status: number, page: { heading: string; message: string; detail?: string }) {
    renderPage(req, res, 'connect-result', { title: page.heading, tone: 'error', ...page }, status);
  }

  router.get('/connect', requireUserPage, async (req, res) => {
    const attempt = await oauth.startAuthorization();
    req.session.pendingConnects = addPendingConnect(req.session.pendingConnects, attempt, clock());
    // The session must hold the verifier before the browser can come back with a code.
    await saveSession(req);
    res.redirect(303, attempt.url.href);
  });

  router.get('/oauth/callback', requireUserPage, async (req, res) => {
    const query = callbackQuery.safeParse(req.query);
    if (!query.success) {
      return showProblem(req, res, 400, {
        heading: 'This link is not valid',
        message: 'The answer from the Athlete Data Service was incomplete. Start connecting again.',
      });
    }
    const { remaining, codeVerifier } = takePendingConnect(req.session.pendingConnects, query.data.state, clock());
    req.session.pendingConnects = remaining;
    await saveSession(req);
    if (codeVerifier === undefined || !(await claimState(redis, redisPrefix, query.data.state))) {
      return showProblem(req, res, 400, {
        heading: 'This connection attempt is no longer valid',
        message: 'It has expired, was already used, or was started in another browser. Start connecting again.',
      });
    }

    if ('error' in query.data) {
      if (query.data.error === 'access_denied') {
        return renderPage(req, res, 'connect-result', {
          title: 'Not connected',
          heading: 'You chose not to connect',
          tone: 'warning',
          message: 'Nothing was shared. You can connect whenever you like.',
        });
      }
      log.warn({ error: query.data.error, description: query.data.error_description }, 'authorization refused');
      return showProblem(req, res, 502, {
        heading: 'The Athlete Data Service refused the connection',
        message: 'Try again; if it keeps failing, contact support with the message below.',
        detail: [query.data.error, query.data.error_description].filter(Boolean).join(': '),
      });
    }

    const user = currentUser(res);
    const notCompleted = { heading: 'Connecting did not complete', message: 'Nothing was saved. Please try again.' };
    let tokens: TokenSet;
    try {
      const callbackUrl = new URL(redirectUri);
      callbackUrl.search = new URLSearchParams(query.data).toString();
      tokens = await oauth.exchangeCode(callbackUrl, { state: query.data.state, codeVerifier });
    } catch (error) {
      const failure = classifyTokenRequestError(error);
      // The log gets the whole diagnosis; the person only what the service itself said, if anything.
      log.warn({ failure, userId: user.id }, 'code exchange failed');
      const detail = serviceWords(failure);
      return showProblem(req, res, 502, { ...notCompleted, ...(detail && { detail }) });
    }
    if (!tokens.refreshToken) {
      log.warn({ userId: user.id }, 'code exchange returned no refresh token');
      return showProblem(req, res, 502, notCompleted);
    }
    await saveConnection(db, cipher, user.id, { ...tokens, refreshToken: tokens.refreshToken }, clock());
    await resumeWaitingEntries({ db, queue: syncQueue, logger: log, clock }, user.id).catch((error: unknown) =>
      log.warn({ err: error, userId: user.id }, 'could not resume waiting entries; the sweeper will'),
    );
    await renewUserSession(req);
    res.redirect(303, '/?notice=connected');
  });

  router.post('/disconnect', requireUserPage, async (_req, res) => {
    const userId = currentUser(res).id;
    await deleteConnection(db, userId);
    await dropQueuedEntries({ db, queue: syncQueue, logger: log, clock }, userId).catch((error: unknown) =>
      log.warn({ err: error, userId }, 'could not drop queued entries; they will find no connection and wait'),
    );
    res.redirect(303, '/?notice=disconnected');
  });

  return router;
}
