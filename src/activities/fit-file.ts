import { Decoder, Profile, Stream, type Mesg, type MesgDefinition } from '@garmin/fitsdk';

/** The FIT protocol's file layout: a 12- or 14-byte header, the records, then a 2-byte CRC. */
const DATA_SIZE_OFFSET = 4;
const CRC_SIZE = 2;

/**
 * The FIT SDK keeps every message it decodes until the end of the file: 65 bytes of memory for a
 * message of one value, 11 to 45 for each value of a wider one, against one or two bytes each in
 * the file, so 25 MiB of tiny or wide messages would take more than a gigabyte. These counts stop
 * such a file early, and in plain numbers: within them a check held at most 85 MB in the costliest
 * layouts we found of the values they count (texts count by their length), two thirds of its
 * thread's memory limit (fit-file-checker.ts). Layouts they do not foresee (a small array or
 * object in each of very many messages, say) meet that limit instead. They are far above an
 * activity: a day of one-second records with ten fields each is 86,400 messages and under a
 * million values.
 *
 * `developerFields` bounds how long a check takes: the decoder looks each developer field of a
 * message up in its developer's field descriptions, a list the file could make as long as it
 * likes. A developer has at most 255 fields (a field's number is a byte).
 */
export const FIT_LIMITS = { messages: 500_000, fieldValues: 2_000_000, developerFields: 255 };

/**
 * What the check asks of the SDK's decoder: every message decoded, as the SDK's defaults decode it,
 * and nothing built after or beside. Merging heart rates into records (on by default) expands
 * every `hr` sample, after the last message, into up to 21 entries the tally never sees: a 5 MB
 * file took 1.5 GB. Scaling values, dates and type names only change how a value is held (a
 * double or a Date in place of an integer) and are not needed to know the file decodes. Subfields
 * and components stay expanded, as any reader of the file would see them: each lands in its
 * message, where the tally counts it.
 */
const DECODE_OPTIONS = {
  mergeHeartRates: false,
  applyScaleAndOffset: false,
  convertDateTimesToDates: false,
  convertTypesToStrings: false,
  includeUnknownData: false,
  decodeMemoGlobs: false,
} as const;

export type FitLimits = typeof FIT_LIMITS;

/**
 * Why these bytes are not one valid .fit file, in words for the person who chose the file, or
 * undefined when they are one. The FIT SDK checks the header, both CRCs and the records; the one
 * thing it leaves to us is comparing the length the header announces with the length received,
 * which tells a file cut short (or with something after it) from a damaged one. Decoding stops as
 * soon as the file holds more than `limits` allow, or defines a message the decoder would take
 * longer over than its bytes warrant.
 */
export function fitFileProblem(bytes: Uint8Array, limits: Partial<FitLimits> = {}): string | undefined {
  if (bytes.length === 0) return 'The file is empty';
  const stream = streamOver(bytes);
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
  const tally = new DecodedTally({ ...FIT_LIMITS, ...limits });
  const [error] = decoder.read({
    ...DECODE_OPTIONS,
    mesgDefinitionListener: (definition) => tally.define(definition),
    mesgListener: (number, message) => tally.add(number, message),
  }).errors;
  if (tally.refusal !== undefined) return tally.refusal;
  return error === undefined ? undefined : `The file could not be read: ${error.message}`;
}

/** Counts what the decoder holds, and stops it (by throwing, which it reports as an error) past a limit. */
class DecodedTally {
  private messages = 0;
  private values = 0;
  /** Field descriptions of each developer (by its index) since its developer_data_id, as the decoder keeps them. */
  private readonly describedFields = new Map<number, number>();
  refusal: string | undefined;

  constructor(private readonly limits: FitLimits) {}

  /**
   * The decoder reads each field of a message (and looks each developer field up among its
   * developer's descriptions), even a field of no bytes: a message of more fields than bytes
   * would cost it more than its bytes, without end. No device writes one.
   */
  define({ fieldDefinitions, developerFieldDefinitions, messageSize, developerDataSize }: MesgDefinition): void {
    const fields = fieldDefinitions.length + developerFieldDefinitions.length;
    // The record header's byte, then the fields'.
    const bytes = 1 + messageSize + developerDataSize;
    if (fields > bytes) {
      this.stop(
        `The file is too complex to check: it defines a message of ${fields} fields in ${bytes} ${bytes === 1 ? 'byte' : 'bytes'}, more fields than bytes`,
      );
    }
  }

  add(number: number, message: Mesg): void {
    this.messages += 1;
    this.values += valuesIn(message);
    if (this.messages > this.limits.messages) this.tooLarge(`more than ${this.limits.messages.toLocaleString('en')} messages`);
    if (this.values > this.limits.fieldValues) this.tooLarge(`more than ${this.limits.fieldValues.toLocaleString('en')} field values`);
    this.countDeveloperFields(number, message);
  }

  /** A developer_data_id starts its developer's list of field descriptions anew; a field_description adds to it. */
  private countDeveloperFields(number: number, message: Mesg): void {
    const { developerDataIndex } = message as { developerDataIndex?: unknown };
    if (typeof developerDataIndex !== 'number') return;
    if (number === Profile.MesgNum.DEVELOPER_DATA_ID) return void this.describedFields.set(developerDataIndex, 0);
    if (number !== Profile.MesgNum.FIELD_DESCRIPTION) return;
    const described = (this.describedFields.get(developerDataIndex) ?? 0) + 1;
    this.describedFields.set(developerDataIndex, described);
    if (described > this.limits.developerFields) {
      this.stop(
        `The file is too complex to check: it describes more than ${this.limits.developerFields} fields of one developer, more than there can be`,
      );
    }
  }

  private tooLarge(what: string): never {
    this.stop(`The file is too large to check: it holds ${what}, more than any activity`);
  }

  private stop(refusal: string): never {
    this.refusal = refusal;
    throw new Error(refusal);
  }
}

/** A text takes memory by its length: it counts as one value per this many characters, about a value's own memory. */
const CHARACTERS_PER_VALUE = 50;

/** A decoded message's field values: an array's each, a developer field's each, a text by its length. */
function valuesIn(message: object): number {
  let values = 0;
  for (const value of Object.values(message) as unknown[]) {
    if (Array.isArray(value)) values += value.length;
    else if (typeof value === 'string') values += Math.max(1, Math.ceil(value.length / CHARACTERS_PER_VALUE));
    else if (typeof value === 'object' && value !== null && !(value instanceof Date)) values += valuesIn(value);
    else values += 1;
  }
  return values;
}

/**
 * The SDK's stream over the bytes. Stream.fromByteArray copies them; bytes that fill their own
 * buffer (as a check's thread reads a file) are read where they are, so a check holds its file
 * once.
 */
function streamOver(bytes: Uint8Array): Stream {
  const { buffer, byteOffset, byteLength } = bytes;
  const whole = buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength;
  return whole ? Stream.fromArrayBuffer(buffer) : Stream.fromByteArray(bytes);
}

/** Header size + data size + CRC, as the header says; Decoder.isFIT has checked the header is there. */
function announcedLength(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = view.getUint8(0);
  return headerSize + view.getUint32(DATA_SIZE_OFFSET, true) + CRC_SIZE;
}
