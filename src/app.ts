import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Store } from 'express-session';
import helmet from 'helmet';
import { createAccountErasure } from './accounts/account-erasure.js';
import { accountPages } from './accounts/account.pages.js';
import { accountApi, signOutApi } from './accounts/accounts.api.js';
import { signInPages } from './accounts/accounts.pages.js';
import { createAccounts } from './accounts/accounts.js';
import { createAttemptLimits } from './accounts/attempt-limits.js';
import { createPasswordHasher } from './accounts/password.js';
import { activitiesApi, activityUploadApi } from './activities/activities.api.js';
import { activitiesPages, activityUploadPage } from './activities/activities.pages.js';
import { createActivities } from './activities/activities.js';
import { createActivityFileLock } from './activities/activity-file-lock.js';
import { createDatabaseActivityFileStore } from './activities/activity-file-store.js';
import { createFitFileChecker } from './activities/fit-file-checker.js';
import { createUploadReception } from './activities/upload-slots.js';
import { queueDashboard } from './admin/queue-dashboard.js';
import type { WebConfig } from './config.js';
import { connectRoutes } from './connections/connect.routes.js';
import type { TokenCipher } from './connections/token-crypto.js';
import { dashboardPages } from './dashboard/dashboard.pages.js';
import { syncOverviewApi } from './dashboard/sync-overview.api.js';
import { checkDatabase, type Db } from './db/database.js';
import type { Logger } from './logger.js';
import { createUnsubscribeLinks } from './notices/unsubscribe-link.js';
import { unsubscribeRoutes } from './notices/unsubscribe.routes.js';
import { mealsApi } from './nutrition/meals.api.js';
import { batchBodyLimitBytes } from './nutrition/meal.schemas.js';
import { createMeals } from './nutrition/meals.js';
import { mealsPages } from './nutrition/meals.pages.js';
import type { Metrics } from './observability/metrics.js';
import { observeRequests } from './observability/requests.js';
import type { ServiceApi } from './provider/api.js';
import type { OAuthClient } from './provider/oauth.js';
import type { RedisConnection } from './queue/redis-target.js';
import type { RequestBudget } from './queue/request-budget.js';
import { createHistoryHint } from './sync/hint.js';
import type { SyncQueues } from './sync/queue.js';
import { dropQueuedEntries } from './sync/connection-changes.js';
import { syncStatusApi } from './sync/sync-status.api.js';
import { loadCurrentUser } from './web/authentication.js';
import { createFormProtection } from './web/csrf.js';
import { noStore } from './web/no-store.js';
import { warnOfPlainHttp } from './web/plain-http-warning.js';
import { createErrorHandler } from './web/error-handler.js';
import { createPageRenderer } from './web/pages.js';
import { readinessCheck } from './web/readiness.js';
import { parseJsonBody, refuseForeignOrigin, requireJsonBody } from './web/request-guards.js';
import { createSessionMiddleware } from './web/session.js';
import { createUserSessions } from './web/user-sessions.js';
import { createViewRenderer } from './web/views.js';
import { createWorkoutReadLimits } from './workouts/read-limits.js';
import { workoutsApi } from './workouts/workouts.api.js';
import { workoutsPages } from './workouts/workouts.pages.js';
import { wellnessApi } from './wellness/wellness.api.js';
import { createWellness } from './wellness/wellness.js';
import { wellnessPages } from './wellness/wellness.pages.js';

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
  /** The service's data API, for what the web reads from it (the workouts list). */
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
  const meals = createMeals({ db, limits: config.meals, clock, historyAdded: createHistoryHint(syncQueues, logger) });
  const files = createDatabaseActivityFileStore(db);
  const activities = createActivities({
    db,
    files,
    lockFile: createActivityFileLock(redis, config.redis.prefix),
    checkFile: createFitFileChecker({ msPerMib: config.activities.checkMsPerMib }),
    clock,
  });
  const uploads = createUploadReception({
    maxBytes: config.activities.maxBytes,
    maxConcurrent: config.activities.maxConcurrentUploads,
    perAddress: config.activities.uploadsPerAddress,
    timeoutMs: config.activities.uploadTimeoutMs,
    minBytesPerS: config.activities.uploadMinBytesPerS,
    folder: config.activities.uploadFolder,
  });
  const wellness = createWellness({ db, clock });
  const workouts = {
    db,
    api: serviceApi,
    budget,
    reads: createWorkoutReadLimits({ redis, redisPrefix: config.redis.prefix, settings: config.workoutReads }),
    clock,
  };
  const attemptLimits = createAttemptLimits({ redis, redisPrefix: config.redis.prefix, settings: config.attemptLimits });
  const accounts = createAccounts({
    db,
    passwords: createPasswordHasher(),
    attemptLimits,
    reservedEmails: new Set(config.admin.emails),
    clock,
  });
  const sessions = createUserSessions({ db, redis, redisPrefix: config.redis.prefix, limits: config.session });
  const erasure = createAccountErasure({
    db,
    files,
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
  app.use(noStore);
  // Before the origin check, sessions and form tokens: a mail client's one-click POST comes from no
  // page of this site and carries no cookie; the link's signature is its authority.
  app.use(unsubscribeRoutes({ db, links: createUnsubscribeLinks(config.tokenEncryption, config.appBaseUrl), renderPage }));
  app.use(refuseForeignOrigin(config.appBaseUrl));
  app.use(createSessionMiddleware({ secret: config.sessionSecret, store: sessionStore, secure, limits: config.session, clock }));
  app.use(loadCurrentUser(db));
  // Before the forms' CSRF check: Bull Board sends JSON, guarded by the origin check above.
  app.use(queueDashboard({ queues: syncQueues, adminEmails: config.admin.emails, allowActions: config.admin.queueActions }));

  // Uploads are multipart (§2.2) and sign-out reads no body: both before the JSON-only guard of the rest of the API.
  app.use(activityUploadApi({ activities, uploads }));
  app.use(signOutApi({ sessions }));
  // An import carries up to MEALS_BATCH_MAX items, more than the 100 kB of any other request.
  app.use('/api/meals/batch', requireJsonBody, parseJsonBody(batchBodyLimitBytes(config.meals)));
  app.use('/api', requireJsonBody, parseJsonBody('100kb'));
  app.use(accountApi({ db, accounts, erasure, sessions, clock }));
  app.use(mealsApi({ meals, limits: config.meals }));
  app.use(activitiesApi({ activities }));
  app.use(wellnessApi({ wellness }));
  app.use(syncStatusApi({ db }));
  app.use(syncOverviewApi({ db, clock }));
  app.use(workoutsApi(workouts));
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'No such endpoint.' });
  });

  // The upload form is multipart: its route parses it, then checks the form token itself.
  app.use(activityUploadPage({ activities, renderPage, clock, uploads, forms }));
  app.use(express.urlencoded({ extended: false, limit: '20kb' }), forms.check);
  app.use(signInPages({ accounts, sessions, renderPage, formTokenFor: forms.tokenFor, clock }));
  app.use(accountPages({ db, accounts, erasure, sessions, renderPage }));
  app.use(dashboardPages({ db, renderPage, clock }));
  app.use(mealsPages({ db, meals, limits: config.meals, renderPage, clock }));
  app.use(workoutsPages({ ...workouts, renderPage }));
  app.use(activitiesPages({ activities, renderPage, clock }));
  app.use(wellnessPages({ wellness, renderPage, clock }));
  app.use(
    connectRoutes({
      db,
      redis,
      redisPrefix: config.redis.prefix,
      oauth,
      cipher,
      syncQueues,
      sessions,
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
