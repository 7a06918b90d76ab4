import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Store } from 'express-session';
import helmet from 'helmet';
import { createAccountErasure } from './accounts/account-erasure.js';
import { accountPages } from './accounts/account.pages.js';
import { accountApi, signOutApi } from './accounts/accounts.api.js';
import { signInPages } from './accounts/accounts.pages.js';
import { createAccounts } from './accounts/accounts.js';
import { accountMailWords, createAccountMailer } from './accounts/account-mails.js';
import { createAttemptLimits } from './accounts/attempt-limits.js';
import { createEmailVerification } from './accounts/email-verification.js';
import { emailVerificationPages } from './accounts/email-verification.pages.js';
import { createPasswordReset } from './accounts/password-reset.js';
import { passwordResetPages } from './accounts/password-reset.pages.js';
import { createPasswordHasher } from './accounts/password.js';
import { queueDashboard } from './admin/queue-dashboard.js';
import type { WebConfig } from './config.js';
import { connectRoutes } from './connections/connect.routes.js';
import type { TokenCipher } from './connections/token-crypto.js';
import { dashboardPages } from './dashboard/dashboard.pages.js';
import { syncOverviewApi } from './dashboard/sync-overview.api.js';
import { checkDatabase, type Db } from './db/database.js';
import { KINDS } from './kinds.js';
import type { KindRoutes } from './kinds/kind.js';
import type { Logger } from './logger.js';
import { createMailer } from './notices/mailer.js';
import { createUnsubscribeLinks } from './notices/unsubscribe-link.js';
import { unsubscribeRoutes } from './notices/unsubscribe.routes.js';
import type { Metrics } from './observability/metrics.js';
import { observeRequests } from './observability/requests.js';
import type { ServiceApi } from './provider/api.js';
import type { OAuthClient } from './provider/oauth.js';
import type { RedisConnection } from './redis/redis-target.js';
import type { RequestBudget } from './budget/request-budget.js';
import type { SyncQueues } from './sync/queue.js';
import { dropQueuedEntries } from './sync/connection-changes.js';
import { syncStatusApi } from './sync/sync-status.api.js';
import { loadCurrentUser } from './web/authentication.js';
import { createFormProtection } from './web/csrf.js';
import { kindStylesheets } from './web/kind-stylesheets.js';
import { noStore } from './web/no-store.js';
import { warnOfPlainHttp } from './web/plain-http-warning.js';
import { createErrorHandler } from './web/error-handler.js';
import { sendToAppAddressOnThisMachine } from './web/loopback-address.js';
import { createPageRenderer } from './web/pages.js';
import { readinessCheck } from './web/readiness.js';
import { parseJsonBody, refuseForeignOrigin, requireJsonBody } from './web/request-guards.js';
import { createSessionMiddleware } from './web/session.js';
import { createUserSessions } from './web/user-sessions.js';
import { createViewRenderer } from './web/views.js';

export interface AppDependencies {
  config: WebConfig;
  logger: Logger;
  metrics: Metrics;
  db: Db;
  sessionStore: Store;
  oauth: OAuthClient;
  cipher: TokenCipher;
  /** For short-lived keys of the web (OAuth state claims) and /readyz; commands fail fast while Redis is away. */
  redis: RedisConnection;
  syncQueues: SyncQueues;
  /** The service's data API, for what the web reads from it (a kind's read feature). */
  serviceApi: ServiceApi;
  /** Paces those reads with the workers' requests (the read lane: a person is waiting, but reads have a share). */
  budget: RequestBudget;
  clock: () => Date;
}

const ASSETS_FOLDER = fileURLToPath(new URL('../views/assets', import.meta.url));
const FAVICON = fileURLToPath(new URL('../views/assets/favicon.svg', import.meta.url));

/** Builds the web app: middleware, routes, error handler. It never listens; `server.ts` does. */
export function createApp(deps: AppDependencies): Express {
  const { config, logger, metrics, db, sessionStore, oauth, cipher, redis, syncQueues, serviceApi, budget, clock } = deps;
  const app = express();
  const secure = config.appBaseUrl.startsWith('https:');
  const forms = createFormProtection({ sessionSecret: config.sessionSecret, secure });
  const renderPage = createPageRenderer(createViewRenderer(), forms.tokenFor);
  const attemptLimits = createAttemptLimits({ redis, redisPrefix: config.redis.prefix, settings: config.attemptLimits });
  const mailer = createMailer(config.mail);
  if (!mailer) logger.info('mail is off (SMTP_URL is not set): addresses cannot be confirmed, nor passwords reset by mail');
  const accountMails = createAccountMailer(mailer, logger);
  const mailWords = accountMailWords(config.appBaseUrl);
  const passwords = createPasswordHasher();
  const verification = createEmailVerification({
    db,
    mails: accountMails,
    words: mailWords,
    attemptLimits,
    linkLifetimeMs: config.accountMail.verificationLinkMs,
    clock,
  });
  const passwordReset = createPasswordReset({
    db,
    mails: accountMails,
    words: mailWords,
    passwords,
    attemptLimits,
    linkLifetimeMs: config.accountMail.resetLinkMs,
    clock,
  });
  const accounts = createAccounts({
    db,
    passwords,
    attemptLimits,
    verification,
    reservedEmails: new Set(config.admin.emails),
    clock,
  });
  const sessions = createUserSessions({ db, redis, redisPrefix: config.redis.prefix, limits: config.session, store: sessionStore });
  const erasure = createAccountErasure({
    db,
    // The scheduler's one entry point for "this person's queued work is void" (see connection-changes.ts).
    forgetQueuedWork: (userId) => dropQueuedEntries({ db, queues: syncQueues, logger }, userId),
    endSessions: sessions.endAll,
    attemptLimits,
    clock,
    logger,
  });

  app.disable('x-powered-by');
  // Behind a load balancer, its X-Forwarded-* headers give the client's address and protocol
  // (Secure cookies, per-address limits); only the proxies named by TRUST_PROXY are believed.
  app.set('trust proxy', config.trustProxy);
  app.use(observeRequests({ logger, metrics }));
  app.use(
    helmet({
      // Over plain http (the local demo) neither upgrade requests nor pin https.
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: secure ? [] : null } },
      strictTransportSecurity: secure,
      // helmet's default, no-referrer, makes browsers send `Origin: null` on same-origin form posts,
      // which refuseForeignOrigin would then refuse.
      referrerPolicy: { policy: 'same-origin' },
    }),
  );
  app.use('/assets', express.static(ASSETS_FOLDER));
  app.use(kindStylesheets());
  // Browsers ask for it on every page whatever the page links; it gets no session.
  app.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').sendFile(FAVICON);
  });
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/readyz', readinessCheck({ database: () => checkDatabase(db), redis: () => redis.ping() }, logger));

  // Everything from here on is per person: the pages and every answer of the JSON API.
  if (secure) app.use(warnOfPlainHttp(logger));
  app.use(sendToAppAddressOnThisMachine(config.appBaseUrl));
  app.use(noStore);
  // Before the origin check, sessions and form tokens: a mail client's one-click POST comes from no
  // page of this site and carries no cookie; the link's signature is its authority.
  app.use(unsubscribeRoutes({ db, links: createUnsubscribeLinks(config.tokenEncryption, config.appBaseUrl), renderPage }));
  app.use(refuseForeignOrigin(config.appBaseUrl));
  app.use(createSessionMiddleware({ secret: config.sessionSecret, store: sessionStore, secure, limits: config.session, clock }));
  app.use(loadCurrentUser(db));
  // Before the forms' CSRF check: Bull Board sends JSON, guarded by the origin check above.
  app.use(queueDashboard({ queues: syncQueues, adminEmails: config.admin.emails, allowActions: config.admin.queueActions }));

  const kinds: KindRoutes[] = KINDS.map((kind) =>
    kind.web({ config, logger, db, redis, syncQueues, serviceApi, budget, renderPage, forms, clock }),
  );
  // Routes that read their own bodies (uploads, large imports) and sign-out, which reads none:
  // before the JSON-only guard of the rest of the API and the forms' token check.
  for (const { ownBodies } of kinds) if (ownBodies) app.use(ownBodies);
  app.use(signOutApi({ sessions }));
  app.use('/api', requireJsonBody, parseJsonBody('100kb'));
  app.use(accountApi({ db, accounts, verification, passwordReset, erasure, sessions, clock }));
  for (const { api } of kinds) if (api) app.use(api);
  app.use(syncStatusApi({ db }));
  app.use(syncOverviewApi({ db, clock }));
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'No such endpoint.' });
  });

  app.use(express.urlencoded({ extended: false, limit: '20kb' }), forms.check);
  app.use(signInPages({ accounts, sessions, renderPage, formTokenFor: forms.tokenFor, clock }));
  app.use(
    passwordResetPages({
      passwordReset,
      sessions,
      attemptLimits,
      renderPage,
      formTokenFor: forms.tokenFor,
      linkLifetimeMs: config.accountMail.resetLinkMs,
      clock,
    }),
  );
  app.use(emailVerificationPages({ accounts, verification, renderPage, linkLifetimeMs: config.accountMail.verificationLinkMs }));
  app.use(accountPages({ db, accounts, erasure, sessions, renderPage, mailOn: accountMails.on }));
  app.use(dashboardPages({ db, renderPage, mailOn: accountMails.on, clock }));
  for (const { pages } of kinds) if (pages) app.use(pages);
  app.use(
    connectRoutes({
      db,
      redis,
      redisPrefix: config.redis.prefix,
      oauth,
      cipher,
      syncQueues,
      sessions,
      attemptLimits,
      redirectUri: config.athlete.redirectUri,
      renderPage,
      logger,
      clock,
    }),
  );
  app.use((req, res) => {
    renderPage(req, res, 'error', { title: 'Not found', heading: 'Page not found', message: 'There is nothing at this address.' }, 404);
  });

  app.use(createErrorHandler({ logger, renderPage }));

  return app;
}
