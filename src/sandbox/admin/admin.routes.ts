import { Router } from 'express';
import { ApiError } from '../http/api-error.js';
import { jsonBody } from '../http/json-body.js';
import { parseBody } from '../http/parse-body.js';
import { resetRuntime, updateSettings, type SandboxRuntime } from '../runtime.js';
import { overfullFaultTarget, publicSettings, settingsPatchSchema } from '../settings.js';
import type { Views } from '../views.js';
import { countersSnapshot, snapshot } from './snapshot.js';

/** Inspection and control for tests and the demo; mounted only in `test` mode. */
export function adminRoutes(runtime: SandboxRuntime, views: Views): Router {
  const router = Router();

  router.get('/_sandbox/state', (_req, res) => {
    res.json(snapshot(runtime));
  });

  // The counters alone: cheap to poll while the state holds many thousands of records.
  router.get('/_sandbox/counters', (_req, res) => {
    res.json(countersSnapshot(runtime.state.counters));
  });

  router.get('/_sandbox', (_req, res) => {
    res.type('html').send(views.state(snapshot(runtime)));
  });

  router.post('/_sandbox/reset', (_req, res) => {
    resetRuntime(runtime);
    res.json({ ok: true });
  });

  router.post('/_sandbox/settings', jsonBody, (req, res) => {
    const patch = parseBody(settingsPatchSchema, req.body);
    const overfull = overfullFaultTarget({ ...runtime.settings, ...patch });
    if (overfull !== undefined) {
      throw new ApiError(400, 'invalid_request', `the ${overfull} target's fault shares add up to more than 1`, { fields: ['faultRates'] });
    }
    updateSettings(runtime, patch);
    res.json(publicSettings(runtime.settings));
  });

  return router;
}
