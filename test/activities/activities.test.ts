import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createAccountErasure } from '../../src/accounts/account-erasure.js';
import { insertUser } from '../../src/accounts/user.repository.js';
import { createActivities } from '../../src/activities/activities.js';
import { createActivityFileLock } from '../../src/activities/activity-file-lock.js';
import { createDatabaseActivityFileStore, type ActivityFileStore } from '../../src/activities/activity-file-store.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { createRedisConnection } from '../../src/redis/redis.js';
import { redisServer } from '../../src/redis/redis-target.js';
import { createTestDatabase, openDb, type TestDatabase } from '../helpers/database.js';
import { fitFile } from '../helpers/fit-files.js';
import { deleteKeys, testRedisPrefix } from '../helpers/redis-keys.js';
import { receivedFileOf } from './activity-files.js';

let database: TestDatabase;
let db: Db;
const redis = createRedisConnection(redisServer(inject('redisUrl')));
const prefix = testRedisPrefix();

beforeAll(async () => {
  database = await createTestDatabase();
  db = openDb(database);
  await migrateToLatest(db);
});
afterAll(async () => {
  await deleteKeys(redis, `${prefix}:*`);
  redis.disconnect();
  await db.destroy();
  await database.drop();
});

/** The database store, with puts that, once the bytes are stored, wait until `resume` is called. */
function storeHeldAfterPut(): { store: ActivityFileStore; stored: Promise<void>; resume(): void } {
  const files = createDatabaseActivityFileStore(db);
  let markStored = () => {};
  let resume = () => {};
  const stored = new Promise<void>((resolve) => (markStored = resolve));
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  return {
    store: {
      ...files,
      async put(key, file) {
        await files.put(key, file);
        markStored();
        await resumed;
      },
    },
    stored,
    resume,
  };
}

describe('a delete racing an upload of the same file', () => {
  it('never leaves an activity without its bytes: the two run one after the other', async () => {
    const user = (await insertUser(db, {
      email: 'race@example.com',
      password_hash: 'x',
      timezone: 'UTC',
      created_at: new Date().toISOString(),
    }))!;
    const common = {
      db,
      checkFile: async () => undefined,
      clock: () => new Date(),
      changed: async () => {},
      lockFile: createActivityFileLock(redis, prefix),
    };
    const plain = createActivities({ ...common, files: createDatabaseActivityFileStore(db) });
    const file = fitFile(1);
    const first = await plain.upload(user, { file: receivedFileOf(file), fileName: 'ride.fit' });
    if (!first.ok) throw new Error('the first upload was refused');

    const held = storeHeldAfterPut();
    const uploadAgain = createActivities({ ...common, files: held.store }).upload(user, {
      file: receivedFileOf(file),
      fileName: 'ride.fit',
    });
    await held.stored;
    // The delete may finish while the upload waits between its bytes and its row; it gets half a second.
    const deleting = plain.remove(user, first.activity.id);
    await Promise.race([deleting, sleep(500)]);
    held.resume();
    const [again] = await Promise.all([uploadAgain, deleting]);

    expect(again.ok).toBe(true);
    const rows = await db.selectFrom('activities').select(['id', 'sha256']).where('user_id', '=', user.id).execute();
    const stored = createDatabaseActivityFileStore(db);
    for (const row of rows) expect(await stored.open(`${user.id}/${row.sha256}`), `bytes of activity ${row.id}`).toBeDefined();
  });
});

describe('an upload whose account is deleted while its bytes are stored', () => {
  it('keeps none of them, and says the account is gone', async () => {
    const user = (await insertUser(db, {
      email: 'gone@example.com',
      password_hash: 'x',
      timezone: 'UTC',
      created_at: new Date().toISOString(),
    }))!;
    const held = storeHeldAfterPut();
    const uploading = createActivities({
      db,
      files: held.store,
      checkFile: async () => undefined,
      clock: () => new Date(),
      lockFile: createActivityFileLock(redis, prefix),
    }).upload(user, { file: receivedFileOf(fitFile(2)), fileName: 'ride.fit' });
    await held.stored;
    const erasure = createAccountErasure({
      db,
      forgetQueuedWork: async () => {},
      endSessions: async () => {},
      attemptLimits: { forgetAccount: async () => {} },
      clock: () => new Date(),
      logger: createLogger('silent', 'test'),
    });
    await erasure.erase(user);
    held.resume();

    expect(await uploading).toEqual({ ok: false, reason: 'account_gone' });
    const left = await db.selectFrom('activity_files').select('key').where('key', 'like', `${user.id}/%`).execute();
    expect(left).toEqual([]);
  });
});
