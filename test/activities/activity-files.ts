import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReceivedFile } from '../../src/activities/activities.js';
import { sha256Hex, type ActivityFileStore } from '../../src/activities/activity-file-store.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';

/** The key's whole file from the store, or undefined when the key holds none. */
export async function readWhole(store: ActivityFileStore, key: string): Promise<Uint8Array | undefined> {
  const file = await store.open(key);
  if (file === undefined) return undefined;
  const pieces: Uint8Array[] = [];
  for await (const piece of file.pieces()) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** The bytes as an upload's file once received: written to a temporary folder, its SHA-256 taken. */
export function receivedFileOf(bytes: Uint8Array): ReceivedFile {
  const path = join(temporaryFolder('received-'), 'upload.fit');
  writeFileSync(path, bytes);
  return { path, size: bytes.byteLength, sha256: sha256Hex(bytes), pieces: () => createReadStream(path) };
}
