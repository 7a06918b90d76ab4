import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Response } from 'express';
import { currentUser, requireUserApi, sendSignInFirst } from '../web/authentication.js';
import { signalOnClientLeaving } from '../web/client-left.js';
import { sendInvalidInput } from '../web/invalid-input.js';
import type { Activities } from './activities.js';
import { StoredFileGoneError, type StoredFile } from './activity-file-store.js';
import { activityChangesSchema, activityIdSchema, uploadFieldsSchema } from './activity.schemas.js';
import { withUploadedFile } from './upload-folder.js';
import type { UploadReception } from './upload-slots.js';

/**
 * POST /api/activities: a multipart upload (§2.2), so app.ts mounts it before the JSON-only guard
 * of the rest of the API. 201 for a new activity, 200 for a file already uploaded (renamed when
 * the name or metadata differ), 400 when the file is not one valid .fit file, 413 over the limit;
 * 429 or 503 when it may not be received now, 408 when it took too long to arrive (upload-slots.ts).
 */
export function activityUploadApi({ activities, uploads }: { activities: Activities; uploads: UploadReception }): Router {
  const router = Router();
  router.post('/api/activities', requireUserApi, uploads.admit, uploads.receive, (req, res) =>
    withUploadedFile(req, async (upload) => {
      const fields = uploadFieldsSchema.safeParse(req.body ?? {});
      if (!fields.success) return sendInvalidInput(res, fields.error);
      const outcome = await activities.upload(currentUser(res), { ...upload, ...fields.data }, signalOnClientLeaving(res));
      if (!outcome.ok && outcome.reason === 'account_gone') return sendSignInFirst(res);
      if (!outcome.ok) return sendInvalidInput(res, { fields: ['file'], message: outcome.message });
      res.status(outcome.created ? 201 : 200).json(outcome.activity);
    }),
  );
  return router;
}

/** The rest of the activities JSON API: a user only ever sees and touches their own activities. */
export function activitiesApi({ activities }: { activities: Activities }): Router {
  const router = Router();
  router.use('/api/activities', requireUserApi);

  router.get('/api/activities', async (_req, res) => {
    res.json({ activities: await activities.list(currentUser(res)) });
  });

  router.get('/api/activities/:id/file', async (req, res) => {
    const id = activityIdSchema.safeParse(req.params.id);
    if (!id.success) return sendNotFound(res);
    const outcome = await activities.file(currentUser(res), id.data);
    if (outcome.ok && (await sendStoredFile(res, outcome.file, outcome.fileName))) return;
    // Its file was deleted (the activity, the account, or the bytes once sent) before a byte of it
    // went out: answered as the request would be a moment later.
    const now = outcome.ok ? await activities.file(currentUser(res), id.data) : outcome;
    // Uploaded again meanwhile: its file is there to send, unless it went again.
    if (now.ok && (await sendStoredFile(res, now.file, now.fileName))) return;
    if (now.ok || now.reason === 'not_found') return sendNotFound(res);
    if (now.reason === 'account_gone') return sendSignInFirst(res);
    res.status(410).json({ error: 'file_pruned', message: `${now.message}.` });
  });

  router.patch('/api/activities/:id', async (req, res) => {
    const id = activityIdSchema.safeParse(req.params.id);
    if (!id.success) return sendNotFound(res);
    const changes = activityChangesSchema.safeParse(req.body ?? {});
    if (!changes.success) return sendInvalidInput(res, changes.error);
    const outcome = await activities.change(currentUser(res), id.data, changes.data);
    if (outcome.ok) return res.json(outcome.activity);
    if (outcome.reason === 'not_found') return sendNotFound(res);
    res.status(409).json({ error: 'file_pruned', message: outcome.message });
  });

  router.delete('/api/activities/:id', async (req, res) => {
    const id = activityIdSchema.safeParse(req.params.id);
    if (!id.success || (await activities.remove(currentUser(res), id.data)) === undefined) return sendNotFound(res);
    res.status(204).end();
  });

  return router;
}

/** Another user's activity is "not found" too: its existence is not revealed. */
function sendNotFound(res: Response) {
  res.status(404).json({ error: 'not_found', message: 'No such activity.' });
}

/**
 * The file as an attachment of type application/octet-stream whatever its name, read from its
 * store a piece at a time as the client takes it, so a download holds one piece in memory however
 * large the file. Answers false, having sent nothing, when the file is gone before its first
 * piece. A client that leaves midway ends the read; a file that cannot be read to its end
 * (deleted meanwhile) cuts the connection, so the client sees a download cut short, never a file
 * that looks whole.
 */
async function sendStoredFile(res: Response, file: StoredFile, fileName: string): Promise<boolean> {
  const pieces = file.pieces()[Symbol.asyncIterator]();
  let first: IteratorResult<Uint8Array>;
  try {
    first = await pieces.next();
  } catch (error) {
    if (error instanceof StoredFileGoneError) return false;
    throw error;
  }
  // attachment() sets a type from the name's extension (x.html would be text/html): the type goes after it.
  res.attachment(fileName).type('application/octet-stream').set('Content-Length', String(file.size));
  try {
    await pipeline(Readable.from(firstThenRest(first, pieces)), res);
  } catch (error) {
    if (!isClientGone(error)) throw error;
  }
  return true;
}

/** The pieces of an iterator whose first result was already taken. */
async function* firstThenRest(first: IteratorResult<Uint8Array>, rest: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  for (let next = first; next.done !== true; next = await rest.next()) yield next.value;
}

/** Node's error for a response whose client closed the connection before its end. */
function isClientGone(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_STREAM_PREMATURE_CLOSE';
}
