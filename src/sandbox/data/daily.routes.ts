import { Router } from 'express';
import type { z } from 'zod';
import { isoTime } from '../clock.js';
import { injectFaults } from '../faults.js';
import { jsonBody } from '../http/json-body.js';
import { parseBody } from '../http/parse-body.js';
import type { ScopeName } from '../oauth/scopes.js';
import type { SandboxRuntime } from '../runtime.js';
import type { Athlete, StoredRecord } from '../state.js';
import type { BearerAuth } from './bearer.js';
import { RECORD_SCHEMAS, unknownFieldsOf, wellnessDay, type UnknownFields } from './payloads.js';
import { upsertRecord } from './records.js';

interface DailyEndpoint<Payload> {
  path: string;
  scope: ScopeName;
  schema(unknownFields: UnknownFields): z.ZodType<Payload>;
  dayOf(payload: Payload): string;
  recordsOf(athlete: Athlete): Map<string, StoredRecord<Payload>>;
}

/** POST /api/nutrition and POST /api/wellness (sections 4.5, 4.6): one record per athlete and day, upserted. */
export function dailyRecordRoutes(runtime: SandboxRuntime, bearer: BearerAuth): Router {
  const router = Router();
  mountDailyEndpoint(router, runtime, bearer, {
    path: '/api/nutrition',
    scope: 'nutrition:write',
    schema: (unknownFields) => RECORD_SCHEMAS[unknownFields].nutrition,
    dayOf: (record) => record.date,
    recordsOf: (athlete) => athlete.nutrition,
  });
  mountDailyEndpoint(router, runtime, bearer, {
    path: '/api/wellness',
    scope: 'health:write',
    schema: (unknownFields) => RECORD_SCHEMAS[unknownFields].wellness,
    dayOf: wellnessDay,
    recordsOf: (athlete) => athlete.wellness,
  });
  return router;
}

function mountDailyEndpoint<Payload>(router: Router, runtime: SandboxRuntime, bearer: BearerAuth, endpoint: DailyEndpoint<Payload>): void {
  router.post(endpoint.path, injectFaults(runtime, 'data'), bearer.requireScope(endpoint.scope), jsonBody, (req, res) => {
    const payload = parseBody(endpoint.schema(unknownFieldsOf(runtime.settings)), req.body);
    const day = endpoint.dayOf(payload);
    const records = endpoint.recordsOf(bearer.accessOf(req).athlete);
    const { record, created } = upsertRecord(records, day, payload, isoTime(runtime.clock.now()));
    res.status(created ? 201 : 200).json({ date: day, writes: record.writes, receivedAt: record.receivedAt });
  });
}
