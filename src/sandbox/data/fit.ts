import { CrcCalculator, Decoder, Stream } from '@garmin/fitsdk';

/** What the listing shows of an activity; null where the file does not say. */
export interface FitSummary {
  startTime: string | null;
  sport: string | null;
  elapsedS: number | null;
  distanceM: number | null;
}

const SIGNATURE = '.FIT';
const SHORT_HEADER_SIZE = 12;
const LONG_HEADER_SIZE = 14;
const CRC_SIZE = 2;

/**
 * Why these bytes are not one valid .fit file, or null when they are. Checks the FIT protocol's
 * file header (size 12 or 14, ".FIT", data size), both CRCs with the SDK's calculator, then decodes
 * the records with the SDK. Chained FIT files (several in one upload) are refused.
 */
export function findFitProblem(bytes: Buffer): string | null {
  if (bytes.length < SHORT_HEADER_SIZE) return `file has ${bytes.length} bytes, too short for a FIT header`;
  const headerSize = bytes.readUInt8(0);
  if (headerSize !== SHORT_HEADER_SIZE && headerSize !== LONG_HEADER_SIZE) {
    return `FIT header size byte is ${headerSize}, expected 12 or 14`;
  }
  if (bytes.toString('latin1', 8, 12) !== SIGNATURE) return 'no ".FIT" signature in the file header';
  const dataSize = bytes.readUInt32LE(4);
  const announcedLength = headerSize + dataSize + CRC_SIZE;
  if (bytes.length !== announcedLength) {
    return `file header announces ${announcedLength} bytes but the file has ${bytes.length} (truncated or padded)`;
  }
  // A 14-byte header may leave its CRC at 0x0000, meaning "not computed".
  const headerCrc = headerSize === LONG_HEADER_SIZE ? bytes.readUInt16LE(SHORT_HEADER_SIZE) : 0;
  if (headerCrc !== 0 && headerCrc !== CrcCalculator.calculateCRC(bytes, 0, SHORT_HEADER_SIZE)) {
    return 'FIT header CRC does not match';
  }
  const dataEnd = headerSize + dataSize;
  if (bytes.readUInt16LE(dataEnd) !== CrcCalculator.calculateCRC(bytes, 0, dataEnd)) return 'FIT file CRC does not match';
  const { errors } = new Decoder(Stream.fromBuffer(bytes)).read();
  return errors[0] === undefined ? null : `FIT records could not be decoded: ${errors[0].message}`;
}

/** The activity's summary from its session message, or, for a file without one, from its records. Only for a valid file. */
export function fitSummary(bytes: Buffer): FitSummary {
  const { messages } = new Decoder(Stream.fromBuffer(bytes)).read();
  const session = messages.sessionMesgs?.[0];
  const records = messages.recordMesgs ?? [];
  const first = records[0]?.timestamp;
  const last = records.at(-1)?.timestamp;
  const recordedS = first instanceof Date && last instanceof Date ? (last.getTime() - first.getTime()) / 1000 : null;
  const start = session?.startTime ?? first;
  return {
    startTime: start instanceof Date ? start.toISOString() : null,
    sport: session?.sport === undefined ? null : String(session.sport),
    elapsedS: session?.totalElapsedTime ?? recordedS,
    distanceM: session?.totalDistance ?? records.at(-1)?.distance ?? null,
  };
}
