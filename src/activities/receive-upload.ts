import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { keepUntilTaken, receivedFile, receiveIntoFolder } from './upload-folder.js';

/**
 * Receives an activity upload: a multipart/form-data body with the .fit file in the part `file`
 * and the text parts `name` and `metadata` (the service's own form, §2.2), plus `_csrf` when it
 * comes from the Activities page's form. The next handler takes the file with withUploadedFile
 * (upload-folder.ts) and finds the text parts in `req.body`, still to be parsed; what is refused here goes to the
 * error handler with its status (400, 408 for a body too slow, or 413 for a file over the limit)
 * and a sentence for the person.
 *
 * The file is never held in memory: it is written, as it arrives, to a file of its own in the
 * upload folder (ACTIVITY_UPLOAD_FOLDER), which the check's thread and the store read, and which
 * is removed in every outcome. Nothing larger than `maxBytes` is written: a body whose
 * Content-Length already says too much is refused before a byte of it is read, and a body that
 * does not say (chunked) or whose file turns out larger is cut off by multer at the limit (multer
 * removes what was written).
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

const NO_FILE_CHOSEN = 'File must be chosen: pick a .fit file to upload.';

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
    /** What the page's form says instead, where the message names the parts of the API's request. */
    readonly forPeople?: string,
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
 * The window over which a body's rate is measured: it must have brought at least this long's worth
 * at the minimum rate in each such window since its start. A connection may start slowly (TCP's
 * slow start, a mobile link waking up) or pause for a moment; a body that stops is cut within it,
 * however fast it came before.
 */
const RATE_WINDOW_MS = 10_000;
/** How often a body's rate is looked at. */
const RATE_CHECK_MS = 500;

export interface BodyLimits {
  /** ACTIVITY_MAX_BYTES: the largest file. */
  maxBytes: number;
  /** ACTIVITY_UPLOAD_TIMEOUT_S: how long the whole body may take to arrive. */
  timeoutMs: number;
  /** ACTIVITY_UPLOAD_MIN_BYTES_PER_S: what a body must bring in each `windowMs`, per second. */
  minBytesPerS: number;
  windowMs?: number;
  /** ACTIVITY_UPLOAD_FOLDER: where the files are written as they arrive (upload-folder.ts). */
  folder: string;
  /**
   * Told each piece of the body as it arrives (the upload's slots count what it holds); a refusal
   * it answers cuts the upload short with it.
   */
  onBodyBytes?: (req: Request, bytes: number) => UploadRefusedError | undefined;
}

/**
 * `timeoutMs` bounds how long the body may take to arrive, and `minBytesPerS` how slowly: in every
 * `windowMs` from its start it must bring `minBytesPerS` for each second (as nginx's
 * client_body_timeout does between two reads, over a window rather than a single read), and is
 * cut once it has not. A client that sends slowly, or stops before the end, holds what it sent
 * until then, not until Node's own request timeout (5 minutes); keeping an upload open costs a
 * client that rate for as long as it does, and a fast start buys nothing. Both are answered 408,
 * and the connection closed.
 */
export function receiveUpload({
  maxBytes,
  timeoutMs,
  minBytesPerS,
  windowMs = RATE_WINDOW_MS,
  folder,
  onBodyBytes,
}: BodyLimits): RequestHandler {
  const reception = receiveIntoFolder(folder);
  const parseForm = multer({
    storage: reception.storage,
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
  const windowChecks = Math.ceil(windowMs / RATE_CHECK_MS);
  const leastPerWindow = (minBytesPerS * windowMs) / 1000;

  return (req, res, next) => {
    if (declaredLength(req) > maxBodyBytes(maxBytes)) return refuseUnread(res, next, tooLarge(maxBytes));
    if (!req.is('multipart/form-data')) {
      return next(new UploadRefusedError(400, `Send the upload as multipart/form-data, with the .fit file in the part "${FILE_PART}".`));
    }
    let received = 0;
    /** What had been received at each of the last checks, the oldest first. */
    const receivedAtChecks: number[] = [];
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
      if (!stop()) return;
      reception.abandon(req);
      refuseUnread(res, next, refusal);
    };
    const deadline = setTimeout(
      () => cut(new UploadRefusedError(408, `The upload did not arrive within ${timeoutMs / 1000} s: ${FASTER}`)),
      timeoutMs,
    );
    const pace = setInterval(() => {
      receivedAtChecks.push(received);
      if (receivedAtChecks.length <= windowChecks) return;
      const windowAgo = receivedAtChecks.shift() ?? 0;
      if (received - windowAgo < leastPerWindow) {
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
      if (req.file === undefined)
        return once(new UploadRefusedError(400, `The upload has no file: send it in the part "${FILE_PART}".`, undefined, NO_FILE_CHOSEN));
      keepUntilTaken(req, res, { file: receivedFile(req.file), fileName: req.file.originalname });
      once();
    });
  };
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
