import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AttemptLimits } from '../accounts/attempt-limits.js';
import { lockSignedInUser } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { OAuthClient } from '../provider/oauth.js';
import type { TokenSet } from '../provider/token-set.js';
import { classifyTokenRequestError, serviceWords } from '../provider/token-errors.js';
import type { RedisConnection } from '../redis/redis-target.js';
import { dropQueuedEntries, queueFirstHistoryTurn, startHistoryOnConnect } from '../sync/connection-changes.js';
import type { SyncQueues } from '../sync/queue.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { renderConfirmation } from '../web/confirm-page.js';
import { flash } from '../web/flash.js';
import type { RenderPage } from '../web/pages.js';
import { saveSession } from '../web/session.js';
import { tooManyAttemptsMessage } from '../web/too-many-attempts.js';
import type { UserSessions } from '../web/user-sessions.js';
import { connectionStanding, type Standing } from './connection-standing.js';
import { deleteConnection, findConnection, saveConnection } from './connection.repository.js';
import { PENDING_CONNECT_TTL_MS, addPendingConnect, claimState, takePendingConnect } from './pending-connects.js';
import type { TokenCipher } from './token-crypto.js';

interface Dependencies {
  db: Db;
  redis: RedisConnection;
  redisPrefix: string;
  oauth: OAuthClient;
  cipher: TokenCipher;
  syncQueues: SyncQueues;
  sessions: UserSessions;
  attemptLimits: Pick<AttemptLimits, 'startConnect'>;
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

/** What happened to a Connect attempt that did not connect, in the person's words. */
interface Outcome {
  tone: 'error' | 'warning';
  heading: string;
  message: string;
  detail?: string;
}

const INCOMPLETE_ANSWER: Outcome = {
  tone: 'error',
  heading: 'This link is not valid',
  message: 'The answer from the Athlete Data Service was incomplete, so it was not used. Nothing was changed.',
};
const EXPIRED_ATTEMPT: Outcome = {
  tone: 'warning',
  heading: 'This connection attempt expired',
  message: `Connecting must be finished within ${PENDING_CONNECT_TTL_MS / 60_000} minutes of starting it, so the service's answer was not used. Nothing was changed.`,
};
const SPENT_ATTEMPT: Outcome = {
  tone: 'warning',
  heading: 'This connection attempt is no longer valid',
  message:
    "It was already finished (for example, by going Back to the service's page after connecting and approving again), " +
    'was started in another browser, or is too old. This answer was not used, so nothing was changed.',
};
const NOT_COMPLETED: Outcome = { tone: 'error', heading: 'Connecting did not complete', message: 'Nothing was saved.' };

/** Past the account's Connects of the hour: the browser was not sent to the service. */
function tooManyConnectsOutcome(retryAfterS: number): Outcome {
  return {
    tone: 'warning',
    heading: 'Too many connection attempts',
    message: `${tooManyAttemptsMessage(retryAfterS)} Nothing was changed.`,
  };
}

/** RFC 6749 §4.1.2.1 access_denied: the person said no; what they said no to depends on what they had. */
function deniedOutcome(standing: Standing): Outcome {
  return standing.kind === 'not_connected'
    ? { tone: 'warning', heading: 'You chose not to connect', message: 'Nothing was shared with this app.' }
    : { tone: 'warning', heading: 'You chose not to reconnect', message: 'Nothing new was shared.' };
}

/** Connect (OAuth authorization code flow with PKCE), its callback, and Disconnect. */
export function connectRoutes(deps: Dependencies): Router {
  const { db, redis, redisPrefix, oauth, cipher, syncQueues, sessions, attemptLimits, redirectUri, renderPage, logger, clock } = deps;
  const router = Router();
  const log = logger.child({ module: 'connect' });
  const callbackQuery = callbackQuerySchema(oauth.issuer);

  /**
   * Every attempt that does not end connected ends here: what happened, what is still true of the
   * stored connection, and a button to try again. It rests on the request and the store only.
   */
  async function showOutcome(
    req: Request,
    res: Response,
    status: number,
    outcome: Outcome | ((standing: Standing) => Outcome),
  ): Promise<void> {
    const standing = connectionStanding(await findConnection(db, currentUser(res).id), clock());
    const page = typeof outcome === 'function' ? outcome(standing) : outcome;
    renderPage(req, res, 'connect-result', { title: page.heading, ...page, standing }, status);
  }

  router.get('/connect', requireUserPage, async (req, res) => {
    const wait = await attemptLimits.startConnect(currentUser(res).id);
    if (wait) {
      res.set('Retry-After', String(wait.retryAfterS));
      return showOutcome(req, res, 429, tooManyConnectsOutcome(wait.retryAfterS));
    }
    const attempt = await oauth.startAuthorization();
    req.session.pendingConnects = addPendingConnect(req.session.pendingConnects, attempt, clock());
    // The session must hold the verifier before the browser can come back with a code.
    await saveSession(req);
    res.redirect(303, attempt.url.href);
  });

  router.get('/oauth/callback', requireUserPage, async (req, res) => {
    const query = callbackQuery.safeParse(req.query);
    if (!query.success) return showOutcome(req, res, 400, INCOMPLETE_ANSWER);
    const { remaining, attempt } = takePendingConnect(req.session.pendingConnects, query.data.state, clock());
    req.session.pendingConnects = remaining;
    await saveSession(req);
    if (attempt.kind === 'expired') return showOutcome(req, res, 400, EXPIRED_ATTEMPT);
    if (attempt.kind === 'unknown' || !(await claimState(redis, redisPrefix, query.data.state))) {
      return showOutcome(req, res, 400, SPENT_ATTEMPT);
    }

    if ('error' in query.data) {
      if (query.data.error === 'access_denied') return showOutcome(req, res, 200, deniedOutcome);
      log.warn({ error: query.data.error, description: query.data.error_description }, 'authorization refused');
      return showOutcome(req, res, 502, {
        tone: 'error',
        heading: 'The Athlete Data Service refused the connection',
        message: 'Nothing was changed. If trying again keeps failing, contact support with the message below.',
        detail: [query.data.error, query.data.error_description].filter(Boolean).join(': '),
      });
    }

    const user = currentUser(res);
    let tokens: TokenSet;
    try {
      const callbackUrl = new URL(redirectUri);
      callbackUrl.search = new URLSearchParams(query.data).toString();
      tokens = await oauth.exchangeCode(callbackUrl, { state: query.data.state, codeVerifier: attempt.codeVerifier });
    } catch (error) {
      const failure = classifyTokenRequestError(error);
      // The log gets the whole diagnosis; the person only what the service itself said, if anything.
      log.warn({ failure, userId: user.id }, 'code exchange failed');
      const detail = serviceWords(failure);
      return showOutcome(req, res, 502, { ...NOT_COMPLETED, ...(detail && { detail }) });
    }
    const { refreshToken } = tokens;
    if (!refreshToken) {
      log.warn({ userId: user.id }, 'code exchange returned no refresh token');
      return showOutcome(req, res, 502, NOT_COMPLETED);
    }
    const historyWaits = await db.transaction().execute(async (trx) => {
      // The account may have been deleted while the service answered: then nothing is saved (401).
      await lockSignedInUser(trx, user.id);
      const waits = await startHistoryOnConnect(trx, user.id, clock());
      await saveConnection(trx, cipher, user.id, { ...tokens, refreshToken }, clock());
      return waits;
    });
    if (historyWaits) await queueFirstHistoryTurn({ db, queues: syncQueues, logger: log }, user.id);
    await sessions.renew(req);
    flash(req, 'Connected. Your data will now be kept in the Athlete Data Service.');
    res.redirect(303, '/');
  });

  router.get('/disconnect', requireUserPage, (req, res) => {
    renderConfirmation(renderPage, req, res, {
      heading: 'Disconnect from the Athlete Data Service?',
      lines: [
        'This app deletes the access it stored and stops syncing; what you record here waits until you connect again.',
        'The service offers no way to withdraw access from here: to withdraw it there too, use its own settings.',
      ],
      action: '/disconnect',
      confirm: 'Disconnect',
      cancel: '/',
    });
  });

  router.post('/disconnect', requireUserPage, async (req, res) => {
    const userId = currentUser(res).id;
    await deleteConnection(db, userId);
    await dropQueuedEntries({ db, queues: syncQueues, logger: log }, userId);
    flash(req, 'Disconnected. This app no longer holds access to your Athlete Data Service account.');
    res.redirect(303, '/');
  });

  return router;
}
