import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';
import { adminRoutes } from './admin/admin.routes.js';
import { systemClock, type Clock } from './clock.js';
import { createBearerAuth } from './data/bearer.js';
import { dailyRecordRoutes } from './data/daily.routes.js';
import { workoutRoutes } from './data/workouts.routes.js';
import { jsonErrorHandler, notFound } from './http/error-handler.js';
import { countRequests } from './http/request-counter.js';
import { logRequests } from './http/request-log.js';
import { authorizeRoutes } from './oauth/authorize.routes.js';
import { tokenRoutes } from './oauth/token.routes.js';
import { createRuntime, type SandboxRuntime } from './runtime.js';
import type { Settings } from './settings.js';
import { createViews } from './views.js';

export interface SandboxOptions {
  settings: Settings;
  clock?: Clock;
  logger?: Logger;
}

export interface Sandbox {
  app: Express;
  runtime: SandboxRuntime;
}

/** Builds the sandbox of the Athlete Data Service; it never listens (see main.ts). */
export function createSandbox({ settings, clock = systemClock, logger }: SandboxOptions): Sandbox {
  const log = logger ?? pino({ level: settings.logLevel });
  const runtime = createRuntime(settings, clock);
  const views = createViews();
  const bearer = createBearerAuth(runtime);
  const app = express();

  app.disable('x-powered-by');
  // Repeated query parameters must arrive as arrays, so the authorize endpoint can refuse them (RFC 6749 §3.1).
  app.set('query parser', 'simple');
  app.use(logRequests(log));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  if (settings.mode === 'test') app.use(adminRoutes(runtime, views));
  // Counted from here on: the service's own traffic, not health checks or inspection.
  app.use(countRequests(runtime));
  app.use(authorizeRoutes(runtime, views));
  app.use(tokenRoutes(runtime));
  app.use(dailyRecordRoutes(runtime, bearer));
  app.use(workoutRoutes(runtime, bearer));
  app.use(notFound);
  app.use(jsonErrorHandler(log));

  return { app, runtime };
}
