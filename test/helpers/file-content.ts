import type { FileContent } from '../../src/provider/multipart-body.js';

/** Bytes in memory as the content of a file part, read in pieces of `pieceBytes`. */
export function fileContentOf(bytes: Uint8Array, pieceBytes = 64 * 1024): FileContent {
  return {
    size: bytes.byteLength,
    async *pieces() {
      for (let offset = 0; offset < bytes.byteLength; offset += pieceBytes) yield bytes.subarray(offset, offset + pieceBytes);
    },
  };
}
