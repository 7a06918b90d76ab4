import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { fitFileProblem } from '../../src/activities/fit-file.js';
import {
  emptyFile,
  fitFile,
  fitFileOfDeveloperFields,
  fitFileOfRecords,
  fitFileOfTexts,
  fitFileWithBadCrc,
  fitFileWithUndecodableRecords,
  notAFitFile,
  truncatedFitFile,
  fitFileWithEndlessLookups,
  fitFileWithSlowLookups,
  withByte,
} from '../helpers/fit-files.js';

const HEADER_SIZE = 14;

describe('fitFileProblem', () => {
  it('accepts a valid activity file', () => {
    expect(fitFileProblem(fitFile())).toBeUndefined();
  });

  it('accepts the valid file seen through a view into a larger buffer', () => {
    const valid = fitFile();
    const larger = new Uint8Array(valid.length + 20);
    larger.set(valid, 7);
    expect(fitFileProblem(larger.subarray(7, 7 + valid.length))).toBeUndefined();
  });

  it('gives different valid files for different serial numbers', () => {
    expect(fitFile(1)).not.toEqual(fitFile(2));
    expect(fitFileProblem(fitFile(2))).toBeUndefined();
  });

  it('refuses an empty file', () => {
    expect(fitFileProblem(emptyFile())).toBe('The file is empty');
  });

  it('refuses a file that is not a .fit file', () => {
    expect(fitFileProblem(notAFitFile())).toMatch(/^This is not a \.fit file: /);
  });

  it('refuses a file whose header does not say ".FIT"', () => {
    expect(fitFileProblem(withByte(fitFile(), 9, 0x41))).toMatch(/^This is not a \.fit file: /);
  });

  it('refuses a truncated file, saying how long it should be', () => {
    const valid = fitFile();
    expect(fitFileProblem(truncatedFitFile())).toBe(
      `The file is cut short: its header announces ${valid.length} bytes but it has ${valid.length - 10}`,
    );
  });

  it('refuses a file with bytes after its end', () => {
    const valid = fitFile();
    expect(fitFileProblem(Uint8Array.from([...valid, 0, 0]))).toBe(
      `The file has 2 bytes after the end its header announces (${valid.length} bytes)`,
    );
  });

  it('refuses two .fit files chained in one', () => {
    expect(fitFileProblem(Uint8Array.from([...fitFile(1), ...fitFile(2)]))).toMatch(/bytes after the end/);
  });

  it('refuses a file whose checksum does not match', () => {
    expect(fitFileProblem(fitFileWithBadCrc())).toBe('The file is damaged: its checksum (CRC) does not match');
  });

  it('refuses a file whose header checksum does not match', () => {
    const valid = fitFile();
    expect(fitFileProblem(withByte(valid, 12, 0xff ^ (valid[12] ?? 0)))).toBe('The file is damaged: its checksum (CRC) does not match');
  });

  it("refuses a file whose checksums match but whose records do not decode, with the SDK's reason", () => {
    expect(fitFileProblem(fitFileWithUndecodableRecords())).toMatch(/^The file could not be read: FIT Runtime Error at byte \d+/);
  });

  it('refuses every byte flipped after the header, and never throws for a byte flipped anywhere', () => {
    // Each of the 255 changes of each byte: few enough to try them all.
    const valid = fitFile();
    const wrong: string[] = [];
    for (let index = 0; index < valid.length; index += 1) {
      for (let mask = 1; mask <= 255; mask += 1) {
        const flipped = `byte ${index} xor ${mask}`;
        try {
          const problem = fitFileProblem(withByte(valid, index, (valid[index] ?? 0) ^ mask));
          if (problem === '' || (index >= HEADER_SIZE && problem === undefined))
            wrong.push(`${flipped}: ${problem === '' ? 'an empty problem' : 'accepted'}`);
        } catch (error) {
          wrong.push(`${flipped}: threw ${String(error)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  const small = { messages: 1000, fieldValues: 4000 };

  it('accepts a file of as many messages and field values as its limits allow', () => {
    expect(fitFileProblem(fitFileOfRecords(1000, 1), small)).toBeUndefined();
    expect(fitFileProblem(fitFileOfRecords(100, 40), small)).toBeUndefined();
  });

  it('refuses a file of more messages than its limit, however small they are', () => {
    expect(fitFileProblem(fitFileOfRecords(1001, 1), small)).toBe(
      'The file is too large to check: it holds more than 1,000 messages, more than any activity',
    );
  });

  it('refuses a file of more field values than its limit, however few messages hold them', () => {
    expect(fitFileProblem(fitFileOfRecords(101, 40), small)).toBe(
      'The file is too large to check: it holds more than 4,000 field values, more than any activity',
    );
  });

  it('counts a text by its length, one value per 50 characters: long texts cannot pass for few values', () => {
    expect(fitFileProblem(fitFileOfTexts(800, 49), small)).toBeUndefined();
    expect(fitFileProblem(fitFileOfTexts(800, 254), small)).toBe(
      'The file is too large to check: it holds more than 4,000 field values, more than any activity',
    );
  });

  it('refuses, by default, 13 million two-byte messages in 26 MB, which the SDK alone would hold as a gigabyte', () => {
    expect(fitFileProblem(fitFileOfRecords(13_000_000, 1))).toBe(
      'The file is too large to check: it holds more than 500,000 messages, more than any activity',
    );
  });

  it('refuses at once a message of more fields than bytes, which would cost the decoder more than its bytes, in words', () => {
    const fieldsOfNoBytes = fitFileOfDeveloperFields({ described: [0], fields: [1, 2, 3], bytesPerField: 0, count: 10 });
    const started = performance.now();
    expect(fitFileProblem(fieldsOfNoBytes)).toBe(
      'The file is too complex to check: it defines a message of 3 fields in 1 byte, more fields than bytes',
    );
    expect(fitFileProblem(fitFileWithEndlessLookups(60 * 1024), { developerFields: 10_000 })).toBe(
      'The file is too complex to check: it defines a message of 255 fields in 1 byte, more fields than bytes',
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses at once more descriptions of one developer’s fields than a developer can have (255), however few bytes they take', () => {
    const started = performance.now();
    expect(fitFileProblem(fitFileWithEndlessLookups(60 * 1024))).toBe(
      'The file is too complex to check: it describes more than 255 fields of one developer, more than there can be',
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('accepts 255 descriptions of one developer’s fields, each field of a message taking a byte', () => {
    expect(fitFileProblem(fitFileWithSlowLookups(64 * 1024))).toBeUndefined();
    const described = Array.from({ length: 255 }, (_, field) => field);
    expect(fitFileProblem(fitFileOfDeveloperFields({ described, fields: described, bytesPerField: 1, count: 10 }))).toBeUndefined();
  });

  it('refuses every file cut short, wherever the cut', () => {
    const valid = fitFile();
    const lengths = Array.from({ length: valid.length }, (_, length) => length);
    expect(lengths.filter((length) => fitFileProblem(valid.slice(0, length)) === undefined)).toEqual([]);
  });
});
