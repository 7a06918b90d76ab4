import {
  CrcCalculator,
  type ActivityMesg,
  type LapMesg,
  Encoder,
  Profile,
  type Encodable,
  type FileIdMesg,
  type HrMesg,
  type RecordMesg,
  type SessionMesg,
} from '@garmin/fitsdk';

/**
 * .fit files for tests, made with the FIT SDK's encoder (no binary fixtures): one small valid
 * activity, and the ways an upload can go wrong.
 */

const CRC_SIZE = 2;

function mesgNum(name: string): number {
  const number = Profile.MesgNum[name];
  if (number === undefined) throw new Error(`no FIT message ${name}`);
  return number;
}

/** An encoder that has written the file_id message of an activity created at `start`. */
function activityEncoder(start: Date, serialNumber?: number): Encoder {
  const encoder = new Encoder();
  const fileId: Encodable<FileIdMesg> = {
    mesgNum: mesgNum('FILE_ID'),
    type: 'activity',
    manufacturer: 'development',
    product: 1,
    ...(serialNumber !== undefined && { serialNumber }),
    timeCreated: start,
  };
  encoder.writeMesg(fileId);
  return encoder;
}

/** A valid activity .fit file of `records` one-second records; a different `serialNumber` gives different bytes. */
export function fitFile(serialNumber = 1, records = 5): Uint8Array {
  const start = new Date('2026-03-01T07:00:00Z');
  const encoder = activityEncoder(start, serialNumber);
  for (let second = 0; second < records; second += 1) {
    const record: Encodable<RecordMesg> = {
      mesgNum: mesgNum('RECORD'),
      timestamp: new Date(start.getTime() + second * 1000),
      heartRate: 120 + second,
      power: 200,
    };
    encoder.writeMesg(record);
  }
  return encoder.close();
}

/**
 * A valid activity .fit file of `messages` heart-rate messages of `samples` samples each (63 fill a
 * message), after a file_id, one record and the anchor `hr` message that heart-rate samples count
 * from: each sample 0 s or 6 s after the anchor, alternating. Merged into the records as the FIT
 * SDK does by default, each such gap is filled with 20 more samples: 15,800 messages (5 MB)
 * become 21 million.
 */
export function fitFileOfHeartRates(messages = 15_800, samples = 63): Uint8Array {
  const start = new Date('2026-03-01T07:00:00Z');
  const encoder = activityEncoder(start);
  const record: Encodable<RecordMesg> = { mesgNum: mesgNum('RECORD'), timestamp: start, heartRate: 120 };
  const anchor: Encodable<HrMesg> = { mesgNum: mesgNum('HR'), timestamp: start, eventTimestamp: [0] };
  encoder.writeMesg(record);
  encoder.writeMesg(anchor);
  const samplesOfAMessage: Encodable<HrMesg> = {
    mesgNum: mesgNum('HR'),
    filteredBpm: Array.from({ length: samples }, () => 120),
    eventTimestamp: Array.from({ length: samples }, (_, sample) => (sample % 2) * 6),
  };
  for (let message = 0; message < messages; message++) encoder.writeMesg(samplesOfAMessage);
  return encoder.close();
}

/** A valid activity .fit file with a session message: a 90-minute, 45 km ride from 06:30 UTC. */
export function fitFileWithSession(): Uint8Array {
  const start = new Date('2026-03-01T06:30:00Z');
  const end = new Date(start.getTime() + 5400 * 1000);
  const encoder = activityEncoder(start);
  const session: Encodable<SessionMesg> = {
    mesgNum: mesgNum('SESSION'),
    timestamp: end,
    startTime: start,
    sport: 'cycling',
    totalElapsedTime: 5400,
    totalDistance: 45_000,
  };
  encoder.writeMesg(session);
  return encoder.close();
}

/**
 * A 20-minute run, a record every 10 s (heart rate, distance, speed), its lap, session and activity,
 * as a person's watch would record it.
 */
export function sampleRun(): Uint8Array {
  const start = new Date('2026-11-20T07:00:00Z');
  const seconds = 1200;
  const end = new Date(start.getTime() + seconds * 1000);
  const metresPerSecond = 3.2;
  const encoder = activityEncoder(start);
  for (let second = 0; second <= seconds; second += 10) {
    const record: Encodable<RecordMesg> = {
      mesgNum: mesgNum('RECORD'),
      timestamp: new Date(start.getTime() + second * 1000),
      heartRate: 120 + Math.round(30 * Math.min(1, second / 600)),
      distance: second * metresPerSecond,
      speed: metresPerSecond,
    };
    encoder.writeMesg(record);
  }
  const totals = {
    startTime: start,
    timestamp: end,
    totalElapsedTime: seconds,
    totalTimerTime: seconds,
    totalDistance: seconds * metresPerSecond,
  };
  const lap: Encodable<LapMesg> = { mesgNum: mesgNum('LAP'), ...totals, sport: 'running' };
  const session: Encodable<SessionMesg> = { mesgNum: mesgNum('SESSION'), ...totals, sport: 'running' };
  const activity: Encodable<ActivityMesg> = { mesgNum: mesgNum('ACTIVITY'), timestamp: end, totalTimerTime: seconds, numSessions: 1 };
  for (const message of [lap, session, activity]) encoder.writeMesg(message);
  return encoder.close();
}

/** A copy of `bytes` with the byte at `index` replaced. */
export function withByte(bytes: Uint8Array, index: number, value: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[index] = value;
  return copy;
}

/** The valid file with one record byte changed and the file CRC left as it was. */
export function fitFileWithBadCrc(serialNumber = 1): Uint8Array {
  const valid = fitFile(serialNumber);
  const lastDataByte = valid.length - CRC_SIZE - 1;
  return withByte(valid, lastDataByte, 0xff ^ (valid[lastDataByte] ?? 0));
}

/** The valid file without its last ten bytes, as an interrupted transfer leaves it. */
export function truncatedFitFile(serialNumber = 1): Uint8Array {
  const valid = fitFile(serialNumber);
  return valid.slice(0, valid.length - 10);
}

/** A text file renamed to .fit. */
export function notAFitFile(): Uint8Array {
  return new TextEncoder().encode('date,heart rate\n2026-03-01T07:00:00Z,120\n');
}

export function emptyFile(): Uint8Array {
  return new Uint8Array();
}

/**
 * Header and CRCs right, records not: the first record becomes a data message of local type 5,
 * which no definition precedes, and the file CRC is computed again over the change.
 */
export function fitFileWithUndecodableRecords(serialNumber = 1): Uint8Array {
  const valid = fitFile(serialNumber);
  const headerSize = valid[0] ?? 0;
  const dataEnd = valid.length - CRC_SIZE;
  const file = withByte(valid, headerSize, 0x05);
  new DataView(file.buffer).setUint16(dataEnd, CrcCalculator.calculateCRC(file, 0, dataEnd), true);
  return file;
}

const STRING = 0x07;

/**
 * A valid .fit file built byte by byte (the encoder is too slow for millions of messages): a
 * 14-byte header, the `preamble`'s bytes (messages of other local types, if any), one definition
 * of local message type 0, `count` data messages of `messageSize` bytes (a zero header byte, then
 * what `fill` writes at `offset + 1`), and both CRCs.
 */
function fitFileOfMessages(
  definition: number[],
  count: number,
  messageSize: number,
  fill: (file: Uint8Array, offset: number, index: number) => void,
  preamble: number[] = [],
): Uint8Array {
  const headerSize = 14;
  const opening = [...preamble, ...definition];
  const dataSize = opening.length + count * messageSize;
  const file = new Uint8Array(headerSize + dataSize + CRC_SIZE);
  const view = new DataView(file.buffer);
  file.set([headerSize, 0x20], 0);
  view.setUint16(2, 2199, true);
  view.setUint32(4, dataSize, true);
  file.set(new TextEncoder().encode('.FIT'), 8);
  view.setUint16(12, CrcCalculator.calculateCRC(file, 0, 12), true);
  file.set(opening, headerSize);
  for (let index = 0; index < count; index++) fill(file, headerSize + opening.length + index * messageSize, index);
  view.setUint16(headerSize + dataSize, CrcCalculator.calculateCRC(file, 0, headerSize + dataSize), true);
  return file;
}

const UINT8 = 0x02;

/** A definition of local message type `local` for the global message `global`: its fields as [number, size, base type]. */
function definitionOf(local: number, global: number, fields: Array<[number, number, number]>): number[] {
  return [0x40 | local, 0, 0, global & 0xff, global >> 8, fields.length, ...fields.flat()];
}

/**
 * A valid .fit file of developer fields (the FIT protocol's only fields not in its profile): one
 * developer (index 0), a field description of type uint8 for each number of `described` (a number
 * may come more than once), then `count` record messages holding nothing but a developer field
 * for each number of `fields`, each of `bytesPerField` bytes (an array of that many values).
 * A field no description names is read past, as the SDK does with any.
 */
export function fitFileOfDeveloperFields({
  described,
  fields,
  bytesPerField,
  count,
}: {
  described: number[];
  fields: number[];
  bytesPerField: number;
  count: number;
}): Uint8Array {
  const DEVELOPER_DATA_INDEX = 3;
  const developer = [...definitionOf(1, mesgNum('DEVELOPER_DATA_ID'), [[DEVELOPER_DATA_INDEX, 1, UINT8]]), 0x01, 0];
  const descriptionDefinition = definitionOf(2, mesgNum('FIELD_DESCRIPTION'), [
    [0, 1, UINT8],
    [1, 1, UINT8],
    [2, 1, UINT8],
  ]);
  const descriptions = described.flatMap((field) => [0x02, 0, field, UINT8]);
  // A record definition with no fields of its own, and the developer fields (the flag 0x20).
  const definition = [
    0x60,
    0,
    0,
    mesgNum('RECORD') & 0xff,
    mesgNum('RECORD') >> 8,
    0,
    fields.length,
    ...fields.flatMap((field) => [field, bytesPerField, 0]),
  ];
  return fitFileOfMessages(
    definition,
    count,
    1 + fields.length * bytesPerField,
    (file, offset) => file.fill(60, offset + 1, offset + 1 + fields.length * bytesPerField),
    [...developer, ...descriptionDefinition, ...descriptions],
  );
}

/**
 * `count` record messages of the first `fields` one-byte fields of the record profile that decode
 * as plain values (no arrays, no components), so each message holds `fields` values.
 */
export function fitFileOfRecords(count: number, fields = 1): Uint8Array {
  const record = Profile.messages[mesgNum('RECORD')]!;
  const plainFields = Object.entries(record.fields)
    .filter(([, field]) => !field.hasComponents && !field.array && field.name !== 'timestamp')
    .map(([number]) => Number(number))
    .slice(0, fields);
  if (plainFields.length < fields) throw new Error(`the record message has only ${plainFields.length} such fields`);
  const definition = definitionOf(
    0,
    mesgNum('RECORD'),
    plainFields.map((field) => [field, 1, UINT8]),
  );
  // A value of 60 for each field.
  return fitFileOfMessages(definition, count, 1 + fields, (file, offset) => file.fill(60, offset + 1, offset + 1 + fields));
}

/**
 * `count` lap messages, each of the lap's twenty fields that hold arrays, one element each: V8
 * holds such a message in about 2 KB, a hundred bytes for each value the checks count.
 */
export function fitFileOfArrays(count: number): Uint8Array {
  const lap = Profile.messages[mesgNum('LAP')]!;
  const BASE_TYPES: Record<string, [number, number]> = { uint8: [UINT8, 1], uint16: [0x84, 2], uint32: [0x86, 4] };
  const fields = Object.entries(lap.fields)
    .filter(([, field]) => field.array && !field.hasComponents && BASE_TYPES[field.baseType as string] !== undefined)
    .map(([number, field]) => [Number(number), ...BASE_TYPES[field.baseType as string]!] as const);
  const definition = definitionOf(
    0,
    mesgNum('LAP'),
    fields.map(([number, baseType, size]) => [number, size, baseType]),
  );
  const messageSize = 1 + fields.reduce((bytes, [, , size]) => bytes + size, 0);
  // A value of 60 in each byte.
  return fitFileOfMessages(definition, count, messageSize, (file, offset) => file.fill(60, offset + 1, offset + messageSize));
}

/**
 * `count` sport messages, each holding one text of `length` characters (the sport's name), which
 * the SDK keeps as a string.
 */
export function fitFileOfTexts(count: number, length: number): Uint8Array {
  const sport = Profile.messages[mesgNum('SPORT')]!;
  const nameField = Number(Object.entries(sport.fields).find(([, field]) => field.type === 'string')![0]);
  const definition = [0x40, 0, 0, mesgNum('SPORT') & 0xff, mesgNum('SPORT') >> 8, 1, nameField, length + 1, STRING];
  // The text ('A's), then the NUL that ends a FIT string.
  return fitFileOfMessages(definition, count, 1 + length + 1, (file, offset) => file.fill(0x41, offset + 1, offset + 1 + length));
}

/**
 * A valid .fit file of about `size` bytes that the checks decode quickly and within their limits:
 * messages of a manufacturer-specific number (0xFF00), each of ten 255-byte text fields, so a
 * 24 MiB file is about ten thousand messages and a hundred thousand values. `seed` changes its bytes.
 */
export function fitFileOfSize(size: number, seed = 1): Uint8Array {
  const FIELDS = 10;
  const FIELD_BYTES = 255;
  const MANUFACTURER_SPECIFIC = 0xff00;
  const definition = [
    0x40,
    0,
    0,
    MANUFACTURER_SPECIFIC & 0xff,
    MANUFACTURER_SPECIFIC >> 8,
    FIELDS,
    ...Array.from({ length: FIELDS }, (_, field) => [field, FIELD_BYTES, STRING]).flat(),
  ];
  const messageSize = 1 + FIELDS * FIELD_BYTES;
  const count = Math.max(1, Math.floor((size - 14 - definition.length - CRC_SIZE) / messageSize));
  // Each field's letters, ending in the NUL that ends a FIT string.
  return fitFileOfMessages(definition, count, messageSize, (file, offset, message) => {
    for (let field = 0; field < FIELDS; field++) {
      const start = offset + 1 + field * FIELD_BYTES;
      file.fill(0x61 + ((seed + message + field) % 26), start, start + FIELD_BYTES - 1);
    }
  });
}

/**
 * A valid .fit file of about `size` bytes that takes the FIT SDK hours to decode: one developer
 * field described over and over (a quarter of the bytes), then one-byte record messages, each with
 * 255 developer fields of no bytes that no description names. The SDK looks each one up through
 * every description: descriptions × messages × 255 steps.
 */
export function fitFileWithEndlessLookups(size: number): Uint8Array {
  const DESCRIPTION_BYTES = 4;
  const descriptions = Math.floor(size / 4 / DESCRIPTION_BYTES);
  const fields = Array.from({ length: 255 }, (_, field) => field + 1);
  return fitFileOfDeveloperFields({
    described: Array<number>(descriptions).fill(0),
    fields,
    bytesPerField: 0,
    count: size - descriptions * DESCRIPTION_BYTES,
  });
}

/**
 * A valid .fit file of about `size` bytes that is as slow to decode as a file within the checks'
 * bounds can be (about half a second per MiB on an idle machine): 255 descriptions of one
 * developer's field 254, then records of its 254 other fields, one byte each, which the SDK looks
 * up through all 255 descriptions and reads past.
 */
export function fitFileWithSlowLookups(size: number): Uint8Array {
  const fields = Array.from({ length: 254 }, (_, field) => field);
  return fitFileOfDeveloperFields({
    described: Array<number>(255).fill(254),
    fields,
    bytesPerField: 1,
    count: Math.ceil(size / (1 + fields.length)),
  });
}
