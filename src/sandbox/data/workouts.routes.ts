import { createHash } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { isoTime } from '../clock.js';
import { injectFaults } from '../faults.js';
import { requireContentType } from '../http/content-type.js';
import { parseBody } from '../http/parse-body.js';
import type { SandboxRuntime } from '../runtime.js';
import type { StoredRecord, WorkoutPayload } from '../state.js';
import type { BearerAuth } from './bearer.js';
import { findFitProblem, fitSummary } from './fit.js';
import { shownFieldsObject, unknownFieldsOf } from './payloads.js';
import { upsertRecord } from './records.js';

/** Section 2.2. Whether name and metadata are required is "not shown": name is, metadata is not. */
const uploadShape = {
  file: z.instanceof(Buffer, { error: 'a file part named "file" is required' }).superRefine((bytes, context) => {
    const problem = findFitProblem(bytes);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  }),
  name: z.string({ error: 'expected one non-empty text part' }).regex(/\S/, { error: 'must not be blank' }),
  metadata: z
    .string({ error: 'expected one text part' })
    .transform(parseJson)
    .pipe(z.record(z.string(), z.unknown(), { error: 'must be a JSON-encoded object' }))
    .optional(),
};

/** POST /api/workouts/upload-fit (section 4.4) and GET /api/workouts (section 4.3). */
export function workoutRoutes(runtime: SandboxRuntime, bearer: BearerAuth): Router {
  const router = Router();

  router.post(
    '/api/workouts/upload-fit',
    injectFaults(runtime, 'data'),
    bearer.requireScope('workout:write'),
    requireContentType('multipart/form-data'),
    receiveFile(runtime),
    (req, res) => {
      const upload = parseBody(shownFieldsObject(unknownFieldsOf(runtime.settings), uploadShape), { ...req.body, file: req.file?.buffer });
      const sha256 = createHash('sha256').update(upload.file).digest('hex');
      const payload: WorkoutPayload = {
        name: upload.name,
        metadata: upload.metadata ?? null,
        bytes: upload.file.length,
        activity: fitSummary(upload.file),
      };
      const workouts = bearer.accessOf(req).athlete.workouts;
      // Section 4.4: upsert keyed by a hash of the file; the same file again updates name and metadata.
      const { record, created } = upsertRecord(workouts, sha256, payload, isoTime(runtime.clock.now()));
      res.status(created ? 201 : 200).json(workoutView(sha256, record));
    },
  );

  router.get('/api/workouts', injectFaults(runtime, 'data'), bearer.requireScope('workout:read'), (req, res) => {
    const workouts = bearer.accessOf(req).athlete.workouts;
    const listing = runtime.settings.workoutsListing;
    if (listing === 'not-json') return res.type('json').send('{"workouts": [{"name": "cut off');
    if (listing === 'object-without-list') return res.json({ count: workouts.size, next: null });
    if (listing === 'odd-entries') return res.json(ODD_ENTRIES);
    res.json({ workouts: [...workouts].map(([sha256, record]) => workoutView(sha256, record)) });
  });

  return router;
}

/** One file part named "file", in memory, no larger than `maxFitBytes` (413 beyond). */
function receiveFile(runtime: SandboxRuntime): RequestHandler {
  // Built per request, so a maxFitBytes changed through /_sandbox/settings applies at once.
  return (req, res, next) => {
    const limits = { fileSize: runtime.settings.maxFitBytes, files: 1 };
    multer({ storage: multer.memoryStorage(), limits }).single('file')(req, res, next);
  };
}

/** The `odd-entries` listing: fields under unknown keys or of the wrong type, and entries that are not objects. */
const ODD_ENTRIES = [
  { name: 'Partly readable', duration: 'about an hour', distance: 12_000 },
  { name: 42, start_date_local: 'last Tuesday', type: ['Ride'], distance: null },
  { title: 'A name under a key nobody expects', seconds: 3600 },
  'Evening run',
  null,
];

/** The listing's workout shape; the document does not show one. */
function workoutView(sha256: string, record: StoredRecord<WorkoutPayload>) {
  return {
    id: record.id,
    name: record.payload.name,
    metadata: record.payload.metadata,
    sha256,
    bytes: record.payload.bytes,
    start_time: record.payload.activity.startTime,
    sport: record.payload.activity.sport,
    elapsed_time: record.payload.activity.elapsedS,
    distance: record.payload.activity.distanceM,
    createdAt: record.createdAt,
    updatedAt: record.receivedAt,
  };
}

/** Undefined for text that is not JSON, which the object check after it then refuses. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
