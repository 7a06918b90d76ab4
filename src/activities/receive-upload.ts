import type { Request, RequestHandler } from 'express';
import multer from 'multer';

/**
 * Receives an activity upload: a multipart/form-data body with the .fit file in the part `file`
 * and the text parts `name` and `metadata` (the service's own form, §2.2), plus `_csrf` when it
 * comes from the Activities page's form. The next handler finds the bytes in `req.file.buffer`
 * and the text parts in `req.body`, all still to be parsed; what is refused here goes to the error
 * handler with its status (400, or 413 for a file over the limit) and a sentence for the person.
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

/** A refusal of the upload; the error handler answers with its status and message. */
export class UploadRefusedError extends Error {
  override name = 'UploadRefusedError';

  constructor(
    readonly status: 400 | 408 | 413 | 429 | 503,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `timeoutMs` (ACTIVITY_UPLOAD_TIMEOUT_S) bounds how long the body may take to arrive: a client that
 * sends slowly, or stops before the end, holds what it sent in memory until then, not until Node's
 * own request timeout (5 minutes). It is answered 408, and the connection closed.
 */
export function receiveUpload({ maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number }): RequestHandler {
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
    if (declaredLength(req) > maxBytes + ENVELOPE_MAX_BYTES) {
      // The body stays unread: closing the connection after the answer spares reading it only to discard it.
      res.set('Connection', 'close');
      return next(tooLarge(maxBytes));
    }
    if (!req.is('multipart/form-data')) {
      return next(new UploadRefusedError(400, `Send the upload as multipart/form-data, with the .fit file in the part "${FILE_PART}".`));
    }
    let answered = false;
    const once = (error?: unknown) => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      next(error);
    };
    const deadline = setTimeout(() => {
      res.set('Connection', 'close');
      once(
        new UploadRefusedError(
          408,
          `The upload did not arrive within ${timeoutMs / 1000} s: send it again, on a faster connection if you can.`,
        ),
      );
    }, timeoutMs);
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

function declaredLength(req: Request): number {
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

const KIB = 1024;
const MIB = 1024 * KIB;

function inWords(bytes: number): string {
  if (bytes >= MIB) return `${Number((bytes / MIB).toFixed(1))} MiB`;
  if (bytes >= KIB) return `${Number((bytes / KIB).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
