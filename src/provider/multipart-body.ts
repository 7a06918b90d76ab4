import { FormDataEncoder, type FileLike, type FormDataLike } from 'form-data-encoder';
import type { StreamedBody } from './keep-alive-request.js';

/** A file part's content, read a piece at a time: its size is known before its bytes are read. */
export interface FileContent {
  size: number;
  /** The bytes in order, from the first at each call. */
  pieces(): AsyncIterable<Uint8Array>;
}

export interface FilePart {
  fileName: string;
  content: FileContent;
}

/** A form's parts in order: a text field, or a file. */
export type MultipartParts = Array<[name: string, value: string | FilePart]>;

/**
 * A multipart/form-data body (RFC 7578) of text and file parts, written by form-data-encoder as the
 * request goes out: a file part is read piece by piece, never held whole, and the body's length is
 * known in advance, so the service gets a Content-Length rather than a chunked body.
 */
export function multipartBody(parts: MultipartParts): StreamedBody {
  const entries = parts.map(([name, value]): [string, string | FileLike] => [name, typeof value === 'string' ? value : fileLike(value)]);
  const encoder = new FormDataEncoder(formOf(entries));
  return { contentType: encoder.contentType, contentLength: Number(encoder.contentLength), chunks: () => encoder.encode() };
}

/** The encoder's idea of a File, whose stream is the content's pieces. */
function fileLike({ fileName, content }: FilePart): FileLike {
  return {
    name: fileName,
    type: 'application/octet-stream',
    size: content.size,
    lastModified: 0,
    stream: () => content.pieces(),
    [Symbol.toStringTag]: 'File',
  };
}

/**
 * The encoder's idea of a FormData, holding the entries as given: the platform's FormData takes
 * only Blobs, which hold their bytes in memory, as file values.
 */
function formOf(entries: Array<[string, string | FileLike]>): FormDataLike {
  return {
    append: () => {
      throw new Error('the form of an upload is complete when made');
    },
    getAll: (name) => entries.filter(([key]) => key === name).map(([, value]) => value),
    entries: () => entries[Symbol.iterator](),
    [Symbol.iterator]: () => entries[Symbol.iterator](),
    [Symbol.toStringTag]: 'FormData',
  };
}
