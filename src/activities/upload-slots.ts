import type { RequestHandler } from 'express';
import { currentUser } from '../web/authentication.js';
import { receiveUpload, UploadRefusedError } from './receive-upload.js';

/** What both upload routes put before their handler: admission (one slot), then the body within its limits. */
export interface UploadReception {
  admit: RequestHandler;
  receive: RequestHandler;
}

/** One process's uploads: its slots, shared by the JSON API and the page, and how a body is received. */
export function createUploadReception(limits: { maxBytes: number; maxConcurrent: number; timeoutMs: number }): UploadReception {
  return {
    admit: admitUploads({ maxConcurrent: limits.maxConcurrent }),
    receive: receiveUpload({ maxBytes: limits.maxBytes, timeoutMs: limits.timeoutMs }),
  };
}

/** When a refused upload may be sent again: an upload in progress is usually done within seconds. */
const RETRY_AFTER_S = 5;

/**
 * Admits an upload (POST /api/activities or the Activities page's form) only while this web
 * process receives and checks fewer than `maxConcurrent` (ACTIVITY_MAX_CONCURRENT_UPLOADS) and none
 * of the same person's: each may hold up to ACTIVITY_MAX_BYTES in memory until it is stored, so
 * this bounds what uploads take, and one person cannot take every slot. A refused upload is
 * answered at once, its body unread (the connection is closed after the answer): 429 for the
 * person's second, 503 when all are taken, both with Retry-After. A slot is freed when its
 * request is answered or its client leaves.
 */
export function admitUploads({ maxConcurrent }: { maxConcurrent: number }): RequestHandler {
  const uploading = new Set<number>();
  return (_req, res, next) => {
    const userId = currentUser(res).id;
    const refused = uploading.has(userId)
      ? new UploadRefusedError(429, 'Your previous upload is still being received or checked: send this one once it is done.')
      : uploading.size >= maxConcurrent
        ? new UploadRefusedError(503, 'Too many uploads are being received right now: please try again in a moment.')
        : undefined;
    if (refused) {
      res.set({ 'Retry-After': String(RETRY_AFTER_S), Connection: 'close' });
      return next(refused);
    }
    uploading.add(userId);
    res.once('close', () => uploading.delete(userId));
    next();
  };
}
