import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createViewRenderer } from './web/views.js';

export interface AppDependencies {
  config: Config;
  logger: Logger;
}

/** Builds the web app: middleware, routes, error handler. It never listens; `server.ts` does. */
export function createApp({ logger }: AppDependencies): Express {
  const app = express();
  const render = createViewRenderer();

  app.disable('x-powered-by');
  app.use(helmet());

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/', (_req, res) => {
    res.send(render('home'));
  });

  app.use(((error, req, res, _next) => {
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    // 5xx details stay in the log; the person sees a plain sentence.
    res.status(500).send('Something went wrong on our side. Please try again.');
  }) satisfies ErrorRequestHandler);

  return app;
}
