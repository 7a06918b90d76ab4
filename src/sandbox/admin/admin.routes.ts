import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../http/api-error.js';
import { jsonBody } from '../http/json-body.js';
import { parseBody } from '../http/parse-body.js';
import { resetRuntime, updateSettings, type SandboxRuntime } from '../runtime.js';
import { overfullFaultTarget, publicSettings, settingsPatchSchema } from '../settings.js';
import { createGrant } from '../oauth/grants.js';
import { scopeNameSchema } from '../oauth/scopes.js';
import { issueTokenResponse } from '../oauth/tokens.js';
import type { Views } from '../views.js';
import { athleteSnapshot, countersSnapshot, snapshot } from './snapshot.js';

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

  // One athlete's records: cheap to poll while the state holds many thousands of athletes.
  router.get('/_sandbox/athletes/:name', (req, res) => {
    const athlete = runtime.state.athletes.get(req.params.name);
    if (athlete === undefined) throw new ApiError(404, 'not_found', `no athlete named ${req.params.name} has sent anything`);
    res.json(athleteSnapshot(athlete));
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

  // Grants as if each athlete had approved the client: a load run's people connected without a
  // browser flow each. Answers each athlete's tokens, which the client then stores as its own.
  router.post('/_sandbox/grants', jsonBody, (req, res) => {
    const { athletes, scopes } = parseBody(seedGrantsSchema, req.body);
    const clientId = runtime.settings.clientId;
    const grants = athletes.map((athlete) => {
      const { grant, refreshToken } = createGrant(runtime, { athlete, clientId, scopes });
      return { athlete, grantId: grant.id, ...issueTokenResponse(runtime, grant, scopes, refreshToken) };
    });
    res.json({ grants });
  });

  return router;
}

/** Small enough pages that one answer stays a few megabytes. */
const SEEDED_GRANTS_MAX = 5000;

const seedGrantsSchema = z.strictObject({
  athletes: z.array(z.string().min(1)).min(1).max(SEEDED_GRANTS_MAX),
  scopes: z.array(scopeNameSchema).min(1),
});
