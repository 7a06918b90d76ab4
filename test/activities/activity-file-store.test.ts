import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  activityFileKey,
  createDatabaseActivityFileStore,
  sha256Hex,
  STORED_PIECE_BYTES,
  StoredFileGoneError,
  type ActivityFileStore,
} from '../../src/activities/activity-file-store.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, openDb, type TestDatabase } from '../helpers/database.js';
import { fileContentOf } from '../helpers/file-content.js';
import { fitFile, fitFileWithBadCrc } from '../helpers/fit-files.js';
import { readWhole } from './activity-files.js';

let database: TestDatabase;
let db: Db;
let store: ActivityFileStore;

beforeEach(async () => {
  database = await createTestDatabase();
  db = openDb(database);
  await migrateToLatest(db);
  store = createDatabaseActivityFileStore(db);
});

afterEach(async () => {
  await db.destroy();
  await database.drop();
});

const everyByteValue = Uint8Array.from({ length: 512 }, (_, index) => index % 256);

async function storedKeys(): Promise<string[]> {
  return (await db.selectFrom('activity_files').select('key').execute()).map((row) => row.key);
}

/** The keys of the pieces stored, one per piece. */
async function storedPieces(): Promise<string[]> {
  return (await db.selectFrom('activity_file_chunks').select('key').orderBy('key').orderBy('position').execute()).map((row) => row.key);
}

async function piecesRead(key: string): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  for await (const piece of (await store.open(key))!.pieces()) pieces.push(piece);
  return pieces;
}

describe('the database ActivityFileStore', () => {
  it('gives back every byte value exactly as put', async () => {
    await store.put('1/all-bytes', fileContentOf(everyByteValue));
    const stored = await readWhole(store, '1/all-bytes');
    expect(stored).toBeDefined();
    expect(Buffer.from(stored ?? []).equals(Buffer.from(everyByteValue))).toBe(true);
  });

  it('gives back a .fit file and a larger random file with the same SHA-256', async () => {
    for (const bytes of [fitFile(), randomBytes(300_000)]) {
      const key = activityFileKey(1, sha256Hex(bytes));
      await store.put(key, fileContentOf(bytes));
      expect(sha256Hex((await readWhole(store, key)) ?? new Uint8Array())).toBe(sha256Hex(bytes));
    }
  });

  it('stores only the bytes of a view, not the rest of its buffer', async () => {
    const view = new Uint8Array(everyByteValue.buffer, 10, 5);
    await store.put('1/view', fileContentOf(view));
    expect(Array.from((await readWhole(store, '1/view')) ?? [])).toEqual([10, 11, 12, 13, 14]);
  });

  it('keeps one row when the same key is put twice', async () => {
    const bytes = fitFile();
    const key = activityFileKey(1, sha256Hex(bytes));
    await store.put(key, fileContentOf(bytes));
    await store.put(key, fileContentOf(bytes));
    expect(await storedKeys()).toEqual([key]);
  });

  it('replaces bytes damaged in the store when the file is put again', async () => {
    const bytes = fitFile();
    const key = activityFileKey(1, sha256Hex(bytes));
    await store.put(key, fileContentOf(fitFileWithBadCrc()));
    await store.put(key, fileContentOf(bytes));
    expect(Array.from((await readWhole(store, key)) ?? [])).toEqual(Array.from(bytes));
    expect(await storedKeys()).toEqual([key]);
  });

  it('answers undefined for a key that holds nothing', async () => {
    expect(await readWhole(store, '1/missing')).toBeUndefined();
  });

  it('deletes a key, and deleting a key that holds nothing is fine', async () => {
    await store.put('1/a', fileContentOf(everyByteValue));
    await store.put('2/a', fileContentOf(everyByteValue));
    await store.delete('1/a');
    await expect(store.delete('1/a')).resolves.toBeUndefined();
    await expect(store.delete('3/never')).resolves.toBeUndefined();
    expect(await readWhole(store, '1/a')).toBeUndefined();
    expect(await storedKeys()).toEqual(['2/a']);
    expect(await storedPieces()).toEqual(['2/a']);
  });

  it('gives a file larger than a piece back in pieces of at most 256 KiB, in order, from its first byte at every read', async () => {
    const bytes = randomBytes(2 * STORED_PIECE_BYTES + 1000);
    await store.put('1/large', fileContentOf(bytes));
    expect((await store.open('1/large'))?.size).toBe(bytes.length);
    for (let read = 1; read <= 2; read++) {
      const pieces = await piecesRead('1/large');
      expect(pieces.map((piece) => piece.length)).toEqual([STORED_PIECE_BYTES, STORED_PIECE_BYTES, 1000]);
      expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
    }
  });

  it('stores a file given in pieces of any size in pieces of 256 KiB, reading it a piece at a time', async () => {
    const bytes = randomBytes(STORED_PIECE_BYTES + 5000);
    await store.put('1/odd', fileContentOf(bytes, 999));
    expect((await store.open('1/odd'))?.size).toBe(bytes.length);
    const pieces = await piecesRead('1/odd');
    expect(pieces.map((piece) => piece.length)).toEqual([STORED_PIECE_BYTES, 5000]);
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
  });

  it('keeps no piece of the bytes a key held before a put of fewer', async () => {
    await store.put('1/a', fileContentOf(randomBytes(2 * STORED_PIECE_BYTES)));
    await store.put('1/a', fileContentOf(everyByteValue));
    expect(await storedPieces()).toEqual(['1/a']);
    expect(Buffer.from((await readWhole(store, '1/a'))!).equals(Buffer.from(everyByteValue))).toBe(true);
  });

  it('fails a read of a file deleted while it is read, rather than ending it short', async () => {
    await store.put('1/large', fileContentOf(randomBytes(3 * STORED_PIECE_BYTES)));
    const pieces = (await store.open('1/large'))!.pieces()[Symbol.asyncIterator]();
    expect((await pieces.next()).value).toHaveLength(STORED_PIECE_BYTES);
    await store.delete('1/large');
    await expect(pieces.next()).rejects.toBeInstanceOf(StoredFileGoneError);
  });

  it('deletes every file of a user, pieces included, and only theirs', async () => {
    await store.put('1/a', fileContentOf(randomBytes(STORED_PIECE_BYTES + 1)));
    await store.put('12/a', fileContentOf(everyByteValue));
    await db.transaction().execute((trx) => store.deleteAllOf(trx, 1));
    expect(await storedKeys()).toEqual(['12/a']);
    expect(await storedPieces()).toEqual(['12/a']);
  });
});

describe('activity file keys', () => {
  it('name the user and the SHA-256 of the bytes', () => {
    const abc = new TextEncoder().encode('abc');
    expect(activityFileKey(7, sha256Hex(abc))).toBe('7/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
