import type { Request, RequestHandler } from 'express';
import { currentUser } from '../web/authentication.js';
import { clientAddress } from '../web/client-address.js';
import { declaredLength, maxBodyBytes, receiveUpload, refuseUnread, UploadRefusedError } from './receive-upload.js';
import { prepareUploadFolder } from './upload-folder.js';

/** What both upload routes put before their handler: admission, then the body within its limits. */
export interface UploadReception {
  admit: RequestHandler;
  receive: RequestHandler;
}

export interface UploadLimits {
  /** ACTIVITY_MAX_BYTES: the largest file. */
  maxBytes: number;
  /** ACTIVITY_MAX_CONCURRENT_UPLOADS: how many files of `maxBytes` the uploads in progress may hold in all, in `folder`. */
  maxConcurrent: number;
  /** ACTIVITY_UPLOADS_PER_ADDRESS: uploads in progress from one client address (an IPv6 /64). */
  perAddress: number;
  /** ACTIVITY_UPLOAD_TIMEOUT_S, in ms. */
  timeoutMs: number;
  /** ACTIVITY_UPLOAD_MIN_BYTES_PER_S. */
  minBytesPerS: number;
  /** ACTIVITY_UPLOAD_FOLDER: where the files of uploads in progress are written. */
  folder: string;
}

/**
 * One process's uploads: what they hold, shared by the JSON API and the page, and how a body is
 * received. Its folder is made if missing and rid of what a process killed midway left; the
 * removal runs on, and what it cannot remove now it removes at a later start.
 */
export function createUploadReception({
  maxBytes,
  maxConcurrent,
  perAddress,
  timeoutMs,
  minBytesPerS,
  folder,
}: UploadLimits): UploadReception {
  prepareUploadFolder(folder).catch(() => {});
  const uploads = uploadsInProgress({
    maxBodyBytes: maxBodyBytes(maxBytes),
    maxHeldBytes: maxConcurrent * maxBodyBytes(maxBytes),
    perAddress,
  });
  return {
    admit: uploads.admit,
    receive: receiveUpload({ maxBytes, timeoutMs, minBytesPerS, folder, onBodyBytes: uploads.arrived }),
  };
}

/** When a refused upload may be sent again: an upload in progress is usually done within seconds. */
const RETRY_AFTER_S = 5;

/** An upload admitted and not yet answered: whose, from where, and the bytes of its body it holds. */
interface Upload {
  userId: number;
  address: string;
  heldBytes: number;
}

/**
 * Admits an upload (POST /api/activities or the Activities page's form) and counts what it holds
 * until it is answered or its client leaves. Its file is kept in the upload folder until it is
 * stored, so what the bodies of all uploads in progress hold there is bounded (`maxHeldBytes`),
 * counted by the bytes each has received: an upload arriving slowly holds little, and a few of
 * them cannot keep everyone else's out, as a count of uploads would let them. One person has one upload in progress
 * at a time, and one client address (an IPv6 /64: client-address.ts) `perAddress`, so that a few
 * accounts on one machine cannot hold many either. A refused upload is answered at once, its body
 * unread (the connection is closed after the answer), with Retry-After: 429 for a person's second
 * or an address's one too many, 503 when its Content-Length would take what the uploads hold past
 * the bound; one whose body takes them past it as it arrives is cut there, 503 too.
 */
function uploadsInProgress({
  maxBodyBytes: bodyMax,
  maxHeldBytes,
  perAddress,
}: {
  maxBodyBytes: number;
  maxHeldBytes: number;
  perAddress: number;
}): { admit: RequestHandler; arrived: (req: Request, bytes: number) => UploadRefusedError | undefined } {
  const inProgress = new Map<Request, Upload>();
  let heldBytes = 0;
  const count = (matches: (upload: Upload) => boolean) => [...inProgress.values()].filter(matches).length;
  const forget = (req: Request) => {
    heldBytes -= inProgress.get(req)?.heldBytes ?? 0;
    inProgress.delete(req);
  };

  const refusalOf = (req: Request, { userId, address }: Upload): UploadRefusedError | undefined => {
    if (count((upload) => upload.userId === userId) > 0) {
      return new UploadRefusedError(
        429,
        'Your previous upload is still being received or checked: send this one once it is done.',
        RETRY_AFTER_S,
      );
    }
    if (count((upload) => upload.address === address) >= perAddress) {
      return new UploadRefusedError(
        429,
        `${perAddress} uploads from your network are still being received or checked: send this one once one of them is done.`,
        RETRY_AFTER_S,
      );
    }
    // A body longer than any upload may have is refused by its length once received (413).
    if (heldBytes + Math.min(declaredLength(req), bodyMax) > maxHeldBytes) return busy();
    return undefined;
  };

  return {
    admit: (req, res, next) => {
      const upload = { userId: currentUser(res).id, address: clientAddress(req), heldBytes: 0 };
      const refused = refusalOf(req, upload);
      if (refused) return refuseUnread(res, next, refused);
      inProgress.set(req, upload);
      res.once('close', () => forget(req));
      next();
    },
    arrived: (req, bytes) => {
      const upload = inProgress.get(req);
      if (upload === undefined) return undefined;
      upload.heldBytes += bytes;
      heldBytes += bytes;
      if (heldBytes <= maxHeldBytes) return undefined;
      forget(req);
      return busy();
    },
  };
}

function busy(): UploadRefusedError {
  return new UploadRefusedError(503, 'Too many uploads are being received right now: please try again in a moment.', RETRY_AFTER_S);
}
