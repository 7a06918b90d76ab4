import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';

/**
 * Receives an activity upload: a multipart/form-data body with the .fit file in the part `file`
 * and the text parts `name` and `metadata` (the service's own form, §2.2), plus `_csrf` when it
 * comes from the Activities page's form. The next handler finds the bytes in `req.file.buffer`
 * and the text parts in `req.body`, all still to be parsed; what is refused here goes to the error
 * handler with its status (400, 408 for a body too slow, or 413 for a file over the limit) and a
 * sentence for the person.
 *
 * The file is held in memory, so nothing larger than `maxBytes` is ever read into it: a body whose
 * Content-Length already says too much is refused before a byte of it is read, and a body that
 * does not say (chunked) or whose file turns out larger is cut off by multer at the limit.
 */

const FILE_PART = 'file';
/** name, metadata and the page form's _csrf. */
const TEXT_PARTS = 3;
const TEXT_PART_MAX_BYTES = 16 * 1024;

/**
 * The most a body can carry beside a file within the limits: every part's headers (busboy reads
 * at most 16 KiB of them per part), two boundary lines around it (RFC 2046: a boundary has at most
 * 70 characters), and the text parts' values.
 */
const PART_HEADERS_MAX_BYTES = 16 * 1024;
const BOUNDARY_LINE_MAX_BYTES = 2 + 70 + 2 + 2;
const ENVELOPE_MAX_BYTES = (1 + TEXT_PARTS) * (PART_HEADERS_MAX_BYTES + 2 * BOUNDARY_LINE_MAX_BYTES) + TEXT_PARTS * TEXT_PART_MAX_BYTES;

/** The longest body an upload of a file of at most `maxBytes` can have. */
export function maxBodyBytes(maxBytes: number): number {
  return maxBytes + ENVELOPE_MAX_BYTES;
}

/** A refusal of the upload; the error handler answers with its status and message. */
export class UploadRefusedError extends Error {
  override name = 'UploadRefusedError';

  constructor(
    readonly status: 400 | 408 | 413 | 429 | 503,
    message: string,
    /** When it may be sent again, for a refusal that only says "not now". */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** Answers a refusal made before the body was read to its end: the connection is closed after the answer, sparing the rest. */
export function refuseUnread(res: Response, next: NextFunction, refusal: UploadRefusedError): void {
  res.set('Connection', 'close');
  if (refusal.retryAfterS !== undefined) res.set('Retry-After', String(refusal.retryAfterS));
  next(refusal);
}

/**
 * What a body is given before the minimum rate counts: a connection may start slowly (TCP's slow
 * start, a mobile link waking up) and catch up after.
 */
const RATE_GRACE_MS = 10_000;
/** How often a body's rate is looked at. */
const RATE_CHECK_MS = 500;

export interface BodyLimits {
  /** ACTIVITY_MAX_BYTES: the largest file. */
  maxBytes: number;
  /** ACTIVITY_UPLOAD_TIMEOUT_S: how long the whole body may take to arrive. */
  timeoutMs: number;
  /** ACTIVITY_UPLOAD_MIN_BYTES_PER_S: a body may take `graceMs` and one more second for each this many bytes it has sent. */
  minBytesPerS: number;
  graceMs?: number;
  /**
   * Told each piece of the body as it arrives (the upload's slots count what it holds); a refusal
   * it answers cuts the upload short with it.
   */
  onBodyBytes?: (req: Request, bytes: number) => UploadRefusedError | undefined;
}

/**
 * `timeoutMs` bounds how long the body may take to arrive, and `minBytesPerS` how slowly: a body
 * may take `graceMs` and one more second for each `minBytesPerS` bytes it has sent so far (as
 * Apache's mod_reqtimeout's MinRate), and is cut once it has taken longer. A client that sends
 * slowly, or stops before the end, holds what it sent in memory until then, not until Node's own
 * request timeout (5 minutes); and keeping an upload open costs a client that rate. Both are
 * answered 408, and the connection closed.
 */
export function receiveUpload({ maxBytes, timeoutMs, minBytesPerS, graceMs = RATE_GRACE_MS, onBodyBytes }: BodyLimits): RequestHandler {
  const parseForm = multer({
    storage: multer.memoryStorage(),
    // Browsers send the file name as UTF-8 (WHATWG HTML, multipart/form-data encoding); busboy
    // would read it as Latin-1, RFC 7578's default, and turn "Müller" into "MÃ¼ller".
    defParamCharset: 'utf8',
    limits: {
      fileSize: maxBytes,
      files: 1,
      fields: TEXT_PARTS,
      parts: 1 + TEXT_PARTS,
      fieldSize: TEXT_PART_MAX_BYTES,
      fieldNameSize: 100,
      headerPairs: 20,
    },
  }).single(FILE_PART);

  return (req, res, next) => {
    if (declaredLength(req) > maxBodyBytes(maxBytes)) return refuseUnread(res, next, tooLarge(maxBytes));
    if (!req.is('multipart/form-data')) {
      return next(new UploadRefusedError(400, `Send the upload as multipart/form-data, with the .fit file in the part "${FILE_PART}".`));
    }
    const started = performance.now();
    let received = 0;
    let answered = false;
    const stop = () => {
      if (answered) return false;
      answered = true;
      clearTimeout(deadline);
      clearInterval(pace);
      req.off('data', arrived);
      return true;
    };
    const once = (error?: unknown) => {
      if (stop()) next(error);
    };
    const cut = (refusal: UploadRefusedError) => {
      if (stop()) refuseUnread(res, next, refusal);
    };
    const deadline = setTimeout(
      () => cut(new UploadRefusedError(408, `The upload did not arrive within ${timeoutMs / 1000} s: ${FASTER}`)),
      timeoutMs,
    );
    const pace = setInterval(() => {
      const allowedMs = graceMs + (received / minBytesPerS) * 1000;
      if (performance.now() - started > allowedMs) {
        cut(new UploadRefusedError(408, `The upload arrived more slowly than ${inWords(minBytesPerS)} per second: ${FASTER}`));
      }
    }, RATE_CHECK_MS);
    const arrived = (piece: Buffer) => {
      received += piece.length;
      const refusal = onBodyBytes?.(req, piece.length);
      if (refusal) cut(refusal);
    };
    // Beside multer's own reading of the body (it pipes the request, in this same tick).
    req.on('data', arrived);
    parseForm(req, res, (error?: unknown) => {
      if (error !== undefined) return once(refusalFor(error, maxBytes));
      if (req.file === undefined) return once(new UploadRefusedError(400, `The upload has no file: send it in the part "${FILE_PART}".`));
      once();
    });
  };
}

/** The file receiveUpload took in, for the handler after it: it lets no request without one through. */
export function uploadedFile(req: Request): { bytes: Uint8Array; fileName: string } {
  if (!req.file) throw new Error('receiveUpload passed on a request without a file');
  return { bytes: req.file.buffer, fileName: req.file.originalname };
}

/** The body's length as its Content-Length says (Node has checked it is a number), 0 when it does not say (chunked). */
export function declaredLength(req: Request): number {
  const header = req.get('content-length');
  return header === undefined ? 0 : Number(header);
}

function tooLarge(maxBytes: number): UploadRefusedError {
  return new UploadRefusedError(413, `The file is larger than the limit of ${inWords(maxBytes)}.`);
}

/** What multer (and busboy beneath it) found wrong with the body, said for a person. */
function refusalFor(error: unknown, maxBytes: number): UploadRefusedError {
  if (!(error instanceof multer.MulterError)) {
    // busboy's own: a malformed or unfinished multipart body.
    return new UploadRefusedError(
      400,
      `The upload is not a readable multipart form: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return tooLarge(maxBytes);
    case 'LIMIT_UNEXPECTED_FILE':
      return new UploadRefusedError(400, `Send the file in the part "${FILE_PART}", not "${error.field ?? ''}".`);
    case 'LIMIT_FILE_COUNT':
      return new UploadRefusedError(400, 'Send one file per upload.');
    case 'LIMIT_FIELD_VALUE':
      return new UploadRefusedError(400, `The part "${error.field ?? ''}" is longer than ${inWords(TEXT_PART_MAX_BYTES)}.`);
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_PART_COUNT':
      return new UploadRefusedError(400, `The upload has too many parts: send "${FILE_PART}", and "name" and "metadata" if you wish.`);
    default:
      return new UploadRefusedError(400, `The upload is not a readable multipart form: ${error.message}.`);
  }
}

const FASTER = 'send it again, on a faster connection if you can.';

const KIB = 1024;
const MIB = 1024 * KIB;

function inWords(bytes: number): string {
  if (bytes >= MIB) return `${Number((bytes / MIB).toFixed(1))} MiB`;
  if (bytes >= KIB) return `${Number((bytes / KIB).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
