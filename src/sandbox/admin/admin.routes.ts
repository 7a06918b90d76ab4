import { Router } from 'express';
import { jsonBody } from '../http/json-body.js';
import { parseBody } from '../http/parse-body.js';
import { resetRuntime, updateSettings, type SandboxRuntime } from '../runtime.js';
import { publicSettings, settingsPatchSchema } from '../settings.js';
import type { Views } from '../views.js';
import { snapshot } from './snapshot.js';

/** Inspection and control for tests and the demo; mounted only in `test` mode. */
export function adminRoutes(runtime: SandboxRuntime, views: Views): Router {
  const router = Router();

  router.get('/_sandbox/state', (_req, res) => {
    res.json(snapshot(runtime));
  });

  router.get('/_sandbox', (_req, res) => {
    res.type('html').send(views.state(snapshot(runtime)));
  });

  router.post('/_sandbox/reset', (_req, res) => {
    resetRuntime(runtime);
    res.json({ ok: true });
  });

  router.post('/_sandbox/settings', jsonBody, (req, res) => {
    updateSettings(runtime, parseBody(settingsPatchSchema, req.body));
    res.json(publicSettings(runtime.settings));
  });

  return router;
}
