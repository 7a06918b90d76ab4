import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type multer from 'multer';
import { z } from 'zod';
import { ClientLeftError } from '../web/client-left.js';
import type { ReceivedFile } from './activities.js';
import { STORED_PIECE_BYTES } from './activity-file-store.js';

/**
 * The upload folder (ACTIVITY_UPLOAD_FOLDER): where the file of each upload in progress is written
 * as it arrives, read by the check's thread and the store, and removed however the upload ends,
 * so that no upload's file is ever held in the web's memory.
 */

/** An upload's file and the name it was chosen under. */
export interface ReceivedUpload {
  file: ReceivedFile;
  fileName: string;
}

/** The upload of a request, until its handler takes it or the response closes. */
interface Kept {
  upload: ReceivedUpload;
  taken: boolean;
  removed: boolean;
}

const keptUploads = new WeakMap<Request, Kept>();

/**
 * Keeps the upload's file for the handler after receiveUpload; one the handler never takes (a
 * form token refused, say) is removed once the response closes.
 */
export function keepUntilTaken(req: Request, res: Response, upload: ReceivedUpload): void {
  const kept = { upload, taken: false, removed: false };
  keptUploads.set(req, kept);
  res.once('close', () => {
    if (kept.taken) return;
    kept.removed = true;
    // A removal that fails (the folder's permissions changed under the process) leaves a file the
    // next start's sweep removes (removeLeftoverUploads): nothing here can answer for it.
    rm(upload.file.path, { force: true }).catch(() => {});
  });
}

/**
 * Runs `work` with the file receiveUpload took in, and removes the file once `work` is done,
 * whatever its outcome. A request whose client left before its handler ran has no file left to
 * work on.
 */
export async function withUploadedFile<T>(req: Request, work: (upload: ReceivedUpload) => Promise<T>): Promise<T> {
  const kept = keptUploads.get(req);
  if (kept === undefined) throw new Error('receiveUpload passed on a request without a file');
  if (kept.removed) throw new ClientLeftError();
  kept.taken = true;
  try {
    return await work(kept.upload);
  } finally {
    await rm(kept.upload.file.path, { force: true });
  }
}

/** What receiveIntoFolder hands multer for a file it wrote: multer adds it to `req.file`. */
const writtenFileSchema = z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string() });

export function receivedFile(file: Express.Multer.File): ReceivedFile {
  const { path, size, sha256 } = writtenFileSchema.parse(file);
  return {
    path,
    size,
    sha256,
    // Regular files are read in pieces of the high-water mark, the store's own size.
    pieces: () => createReadStream(path, { highWaterMark: STORED_PIECE_BYTES }),
  };
}

/** Every upload's file is named so, in the upload folder: what removeLeftoverUploads looks for. */
const UPLOAD_FILE_PREFIX = 'athlete-sync-upload-';
const UPLOAD_FILE_SUFFIX = '.fit.part';

/** The storage engine for multer, and how to end the writing of a request's file when its upload is cut short. */
export interface FolderReception {
  storage: multer.StorageEngine;
  /**
   * Ends, and removes, the file of a request whose upload was cut short (and any it would start):
   * once the refusal is answered, Node reads the rest of the body to nowhere, so multer would never
   * see its end.
   */
  abandon(req: Request): void;
}

/**
 * A multer storage engine that writes each file to a new file of its own in `folder`, readable by
 * this process's user only and never one that was already there ('wx', so a name planted in a
 * shared temporary folder is refused rather than followed), and takes its SHA-256 as it passes. A
 * file whose writing fails is removed here: multer removes only what was written whole.
 */
export function receiveIntoFolder(folder: string): FolderReception {
  /** The file being written for each of multer's files, so that a removal waits for it to be closed. */
  const writing = new WeakMap<Express.Multer.File, WriteStream>();
  /** The part being read into a file, for each request, and the requests abandoned. */
  const reading = new WeakMap<Request, Readable>();
  const abandoned = new WeakSet<Request>();
  const removeWritten = async (file: Express.Multer.File) => {
    const written = writing.get(file);
    // Closed first: a file still being opened would otherwise be created after its removal.
    if (written !== undefined && !written.closed) await new Promise<void>((resolve) => written.destroy().once('close', () => resolve()));
    await rm(file.path, { force: true });
  };
  const storage: multer.StorageEngine = {
    _handleFile(req, file, done) {
      if (abandoned.has(req)) return done(new Error('the upload was cut short'));
      reading.set(req, file.stream);
      const path = join(folder, `${UPLOAD_FILE_PREFIX}${randomUUID()}${UPLOAD_FILE_SUFFIX}`);
      // multer removes a file that has a path when the upload fails while it is written.
      file.path = path;
      const hash = createHash('sha256');
      let size = 0;
      const hashing = new Transform({
        transform(piece: Buffer, _encoding, passOn) {
          hash.update(piece);
          size += piece.length;
          passOn(null, piece);
        },
      });
      const written = createWriteStream(path, { flags: 'wx', mode: 0o600 });
      writing.set(file, written);
      pipeline(file.stream, hashing, written).then(
        () => {
          const info = { path, size, sha256: hash.digest('hex') };
          done(null, info);
        },
        (error: unknown) => removeWritten(file).then(() => done(error), done),
      );
    },
    _removeFile(_req, file, done) {
      removeWritten(file).then(() => done(null), done);
    },
  };
  return {
    storage,
    abandon(req) {
      abandoned.add(req);
      reading.get(req)?.destroy(new Error('the upload was cut short'));
    },
  };
}

/** An upload's file untouched this long belongs to no upload in progress: a process that stopped midway left it. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/**
 * Makes the upload folder if it is missing (readable by this process's user only), and removes
 * the files of uploads that a process killed midway left in it. A folder the process cannot make
 * fails its start.
 */
export function prepareUploadFolder(folder: string, now = Date.now()): Promise<void> {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return removeLeftoverUploads(folder, now);
}

async function removeLeftoverUploads(folder: string, now: number): Promise<void> {
  const names = (await readdir(folder)).filter((name) => name.startsWith(UPLOAD_FILE_PREFIX) && name.endsWith(UPLOAD_FILE_SUFFIX));
  for (const name of names) {
    const path = join(folder, name);
    // Another process's upload may end, and remove its file, meanwhile.
    const modified = (await stat(path).catch(() => undefined))?.mtimeMs ?? now;
    if (now - modified > LEFTOVER_AGE_MS) await rm(path, { force: true });
  }
}
