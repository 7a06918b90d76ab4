import { Decoder, Stream } from '@garmin/fitsdk';

/** The FIT protocol's file layout: a 12- or 14-byte header, the records, then a 2-byte CRC. */
const DATA_SIZE_OFFSET = 4;
const CRC_SIZE = 2;

/**
 * Why these bytes are not one valid .fit file, in words for the person who chose the file, or
 * undefined when they are one. The FIT SDK checks the header, both CRCs and the records; the one
 * thing it leaves to us is comparing the length the header announces with the length received,
 * which tells a file cut short (or with something after it) from a damaged one.
 */
export function fitFileProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return 'The file is empty';
  const stream = Stream.fromByteArray(bytes);
  if (!Decoder.isFIT(stream)) return 'This is not a .fit file: it does not start with a FIT file header';
  const announced = announcedLength(bytes);
  if (bytes.length < announced) {
    return `The file is cut short: its header announces ${announced} bytes but it has ${bytes.length}`;
  }
  // The SDK would read what follows as a second FIT file; the service takes one per upload (§2.2).
  if (bytes.length > announced) {
    return `The file has ${bytes.length - announced} bytes after the end its header announces (${announced} bytes)`;
  }
  const decoder = new Decoder(stream);
  if (!decoder.checkIntegrity()) return 'The file is damaged: its checksum (CRC) does not match';
  const [error] = decoder.read().errors;
  return error === undefined ? undefined : `The file could not be read: ${error.message}`;
}

/** Header size + data size + CRC, as the header says; Decoder.isFIT has checked the header is there. */
function announcedLength(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = view.getUint8(0);
  return headerSize + view.getUint32(DATA_SIZE_OFFSET, true) + CRC_SIZE;
}
