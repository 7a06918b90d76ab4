import { Router } from 'express';
import { KIND_STYLESHEETS } from './views.js';

/** Serves each kind's stylesheet (views.ts), cached and revalidated as the shared assets are. */
export function kindStylesheets(): Router {
  const router = Router();
  for (const { href, file } of KIND_STYLESHEETS) {
    router.get(href, (_req, res) => {
      res.sendFile(file);
    });
  }
  return router;
}
