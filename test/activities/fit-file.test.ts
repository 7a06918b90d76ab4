import { describe, expect, it } from 'vitest';
import { fitFileProblem } from '../../src/activities/fit-file.js';
import {
  emptyFile,
  fitFile,
  fitFileOfRecords,
  fitFileOfTexts,
  fitFileWithBadCrc,
  fitFileWithUndecodableRecords,
  notAFitFile,
  truncatedFitFile,
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

  it('refuses every file cut short, wherever the cut', () => {
    const valid = fitFile();
    const lengths = Array.from({ length: valid.length }, (_, length) => length);
    expect(lengths.filter((length) => fitFileProblem(valid.slice(0, length)) === undefined)).toEqual([]);
  });
});
