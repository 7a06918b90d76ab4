import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountErasure } from '../../src/accounts/account-erasure.js';
import type { User } from '../../src/accounts/user.table.js';
import { activitiesApi } from '../../src/activities/activities.api.js';
import { createActivities } from '../../src/activities/activities.js';
import {
  sha256Hex,
  activityFileKey,
  createDatabaseActivityFileStore,
  type ActivityFileStore,
} from '../../src/activities/activity-file-store.js';
import { activitySender } from '../../src/activities/activity-sender.js';
import { SESSION_COOKIE } from '../../src/web/session.js';
import {
  emptyFile,
  fitFile,
  fitFileWithBadCrc,
  fitFileWithEndlessLookups,
  fitFileWithUndecodableRecords,
  notAFitFile,
  truncatedFitFile,
} from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import { createLogger } from '../../src/logger.js';
import { serveWithErrorHandler } from '../helpers/bare-app.js';
import { bodyOf, type ApiError, type CookieClient } from '../helpers/http-client.js';
import { NOT_UTF8, utf16 } from '../helpers/json-charsets.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { readWhole } from './activity-files.js';
import { activityTraces, listActivities, postActivity, renameActivity, uploadActivity } from './helpers.js';
import { streamUpload } from './stream-upload.js';

const MAX_BYTES = 64 * 1024;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { ACTIVITY_MAX_BYTES: String(MAX_BYTES) } });
});
afterAll(async () => {
  await stack.close();
});

async function newUser(): Promise<{ client: CookieClient; userId: number }> {
  const client = stack.browser();
  const email = await signUpNewUser(client);
  const user = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { client, userId: user.id };
}

async function outboxVersion(userId: number, activityId: number): Promise<number | undefined> {
  const row = await stack.db
    .selectFrom('outbox')
    .select('version')
    .where('user_id', '=', userId)
    .where('kind', '=', 'activities')
    .where('subject', '=', String(activityId))
    .executeTakeFirst();
  return row?.version;
}

const nothing = { rows: 0, files: 0, outbox: 0, fresh: 0 };

/** A JSON object `depth` (at least 2) levels deep, in few characters: {"a":[[…[]…]]}. */
function nestedJson(depth: number): string {
  return `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

/** `{"metadata":{"k":"\u4122","d":[[…]]}}`: in UTF-16LE, 䄢 is the bytes `"A`, a quote to a reader of UTF-8. */
function deepMetadata(depth: number): string {
  return `{"metadata":{"k":"\u4122","d":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
}

/** Metadata (as JSON text) holding a key that JavaScript objects have as a member of their prototype, and that key. */
const PROTOTYPE_KEYED_METADATA: Array<[string, string]> = [
  ['__proto__', '{"__proto__":{"admin":true}}'],
  ['constructor', '{"constructor":"x"}'],
  ['prototype', '{"localId":"1","nested":[{"prototype":1}]}'],
];

describe('POST /api/activities', () => {
  it('answers 201 with the activity, stores the bytes exactly as sent, and queues one upload', async () => {
    const { client, userId } = await newUser();
    const file = fitFile(101);
    const activity = await uploadActivity(client, file, { name: 'Morning ride', metadata: '{"localId":"42"}' });
    expect(activity).toEqual({
      id: expect.any(Number),
      name: 'Morning ride',
      metadata: { localId: '42' },
      sha256: sha256Hex(file),
      bytes: file.length,
      fileName: 'ride.fit',
      fileStored: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      sync: { status: 'pending' },
    });
    const stored = await readWhole(createDatabaseActivityFileStore(stack.db), activityFileKey(userId, activity.sha256));
    expect(Buffer.from(stored!).equals(Buffer.from(file))).toBe(true);
    expect(await activityTraces(stack, userId)).toEqual({ rows: 1, files: 1, outbox: 1, fresh: 1 });
  });

  it('names an activity sent without a name after its file, and gives it empty metadata', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(102), { fileName: 'Col du Galibier.FIT' });
    expect(activity).toMatchObject({ name: 'Col du Galibier', metadata: {}, fileName: 'Col du Galibier.FIT' });
  });

  it.each([
    ['Müller Ride.fit', 'Müller Ride', 110],
    ['ünïcødé 🚴.fit', 'ünïcødé 🚴', 111],
  ])('reads the file name %s as the UTF-8 a browser sends, and names the activity after it', async (fileName, name, serialNumber) => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(serialNumber), { fileName });
    expect(activity).toMatchObject({ name, fileName });
  });

  it('keeps one activity for the same file sent twice: 200 with it, and no second upload', async () => {
    const { client, userId } = await newUser();
    const first = await uploadActivity(client, fitFile(103), { name: 'Ride' });
    const again = await uploadActivity(client, fitFile(103), { name: 'Ride' }, 200);
    expect(again).toMatchObject({ id: first.id, name: 'Ride' });
    expect(await listActivities(client)).toHaveLength(1);
    expect(await outboxVersion(userId, first.id)).toBe(1);
  });

  it('sends the file once more when it comes again under another name or metadata', async () => {
    const { client, userId } = await newUser();
    const first = await uploadActivity(client, fitFile(104), { name: 'Ride' });
    const renamed = await uploadActivity(client, fitFile(104), { name: 'Long ride', metadata: '{"trip":"alps"}' }, 200);
    expect(renamed).toMatchObject({ id: first.id, name: 'Long ride', metadata: { trip: 'alps' } });
    expect(await outboxVersion(userId, first.id)).toBe(2);
    // Without name or metadata the file changes nothing.
    await uploadActivity(client, fitFile(104), {}, 200);
    expect(await outboxVersion(userId, first.id)).toBe(2);
  });

  it.each<[string, () => Uint8Array, RegExp]>([
    ['a file with a bad CRC', () => fitFileWithBadCrc(105), /damaged: its checksum \(CRC\) does not match/],
    ['a truncated file', () => truncatedFitFile(105), /cut short: its header announces \d+ bytes but it has \d+/],
    ['a file that is not .fit', notAFitFile, /not a \.fit file/],
    ['an empty file', emptyFile, /The file is empty/],
    ['a file whose records do not decode', () => fitFileWithUndecodableRecords(105), /could not be read/],
  ])('refuses %s with 400 and the reason, storing and queuing nothing', async (_case, file, reason) => {
    const { client, userId } = await newUser();
    const response = await postActivity(client, file(), { name: 'Ride' });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'invalid_request',
      fields: ['file'],
      message: expect.stringMatching(reason),
    });
    expect(await activityTraces(stack, userId)).toEqual(nothing);
  });

  it.each([
    [{ metadata: 'not json' }, 'metadata'],
    [{ metadata: '[1,2]' }, 'metadata'],
    [{ name: '   ' }, 'name'],
    [{ name: 'Ride\u202E' }, 'name'],
  ])('refuses bad text parts with 400 naming the part, storing nothing (%j)', async (options, field) => {
    const { client, userId } = await newUser();
    const response = await postActivity(client, fitFile(106), options);
    expect(response.status).toBe(400);
    expect((await bodyOf<ApiError>(response)).fields).toEqual([field]);
    expect(await activityTraces(stack, userId)).toEqual(nothing);
  });

  it.each([8_000, 33])('refuses a metadata part nested %i deep with 400 naming it, storing nothing', async (depth) => {
    const { client, userId } = await newUser();
    const response = await postActivity(client, fitFile(108), { metadata: nestedJson(depth) });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toMatchObject({
      fields: ['metadata'],
      message: expect.stringContaining('nested more than 32 deep'),
    });
    expect(await activityTraces(stack, userId)).toEqual(nothing);
  });

  it.each(PROTOTYPE_KEYED_METADATA)(
    'refuses a metadata part with a key named like a prototype member (%s) with 400 naming it, storing nothing',
    async (key, metadata) => {
      const { client, userId } = await newUser();
      const response = await postActivity(client, fitFile(115), { metadata });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toEqual({
        error: 'invalid_request',
        fields: ['metadata'],
        message: expect.stringContaining(`"${key}"`),
      });
      expect(await activityTraces(stack, userId)).toEqual(nothing);
    },
  );

  it.each(['{"distance":1e999}', '{"laps":[{"d":-1e400}]}'])(
    'refuses a metadata part holding a number too large to keep (%s) with 400 naming metadata, storing nothing',
    async (metadata) => {
      const { client, userId } = await newUser();
      const response = await postActivity(client, fitFile(160), { metadata });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toEqual({
        error: 'invalid_request',
        fields: ['metadata'],
        message: expect.stringContaining('too large (such as 1e999)'),
      });
      expect(await activityTraces(stack, userId)).toEqual(nothing);
    },
  );

  it('takes a metadata part nested 32 deep', async () => {
    const { client } = await newUser();
    expect(await uploadActivity(client, fitFile(109), { metadata: nestedJson(32) })).toMatchObject({
      metadata: JSON.parse(nestedJson(32)),
    });
  });

  it('answers 413 to a body declared too large before reading it, storing nothing', async () => {
    const { client, userId } = await newUser();
    const declared = 64 * 1024 * 1024;
    const upload = await streamUpload(`${stack.appUrl}/api/activities`, declared, {
      declare: true,
      headers: { cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}` },
    });
    expect(upload).toMatchObject({
      status: 413,
      json: { error: 'payload_too_large', message: 'The file is larger than the limit of 64 KiB.' },
    });
    // The kernel's socket buffers take some megabytes whether or not the server reads them.
    expect(upload.sentWhenAnswered).toBeLessThan(declared / 4);
    expect(await activityTraces(stack, userId)).toEqual(nothing);
  });

  it('answers 413 to a chunked body once its file passes the limit', async () => {
    const { client, userId } = await newUser();
    const upload = await streamUpload(`${stack.appUrl}/api/activities`, 4 * MAX_BYTES, {
      declare: false,
      headers: { cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}` },
    });
    expect(upload.status).toBe(413);
    expect(await activityTraces(stack, userId)).toEqual(nothing);
  });

  it('answers 401 without a session', async () => {
    expect((await postActivity(stack.browser(), fitFile(107))).status).toBe(401);
  });
});

describe('a file built to keep its check decoding for hours', () => {
  it('is refused at once with 400 naming the file, storing nothing, and the next upload is checked', async () => {
    const { client, userId } = await newUser();
    const response = await postActivity(client, fitFileWithEndlessLookups(60 * 1024));
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'invalid_request',
      fields: ['file'],
      message: 'The file is too complex to check: it describes more than 255 fields of one developer, more than there can be.',
    });
    expect(await activityTraces(stack, userId)).toEqual(nothing);
    await uploadActivity(client, fitFile(117));
  });
});

describe('PATCH /api/activities/:id', () => {
  it('renames an activity, one more upload per change', async () => {
    const { client, userId } = await newUser();
    const activity = await uploadActivity(client, fitFile(110), { name: 'Ride' });
    const response = await renameActivity(client, activity.id, { name: 'Evening ride', metadata: { n: 1 } });
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toMatchObject({ id: activity.id, name: 'Evening ride', metadata: { n: 1 } });
    expect(await outboxVersion(userId, activity.id)).toBe(2);
    expect((await renameActivity(client, activity.id, { name: 'Evening ride' })).status).toBe(200);
    expect(await outboxVersion(userId, activity.id)).toBe(2);
  });

  it('answers 409 once the file was pruned after upload, and a new upload of it restores the bytes', async () => {
    const { client, userId } = await newUser();
    const file = fitFile(111);
    const activity = await uploadActivity(client, file, { name: 'Ride' });
    const sender = activitySender({
      db: stack.db,
      api: stack.serviceApi(),
      activityFiles: { store: createDatabaseActivityFileStore(stack.db), retention: 'prune-after-upload' },
    });
    await sender.afterSynced!({ userId, kind: 'activities', subject: String(activity.id) });
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, name: 'Ride', sha256: sha256Hex(file), fileStored: false }]);
    expect((await activityTraces(stack, userId)).files).toBe(0);

    const response = await renameActivity(client, activity.id, { name: 'Another name' });
    expect(response.status).toBe(409);
    expect(await bodyOf<ApiError>(response)).toEqual({
      error: 'file_pruned',
      message: expect.stringMatching(/upload the file again to change it/),
    });

    expect(await uploadActivity(client, file, {}, 200)).toMatchObject({ id: activity.id, fileStored: true });
    expect((await activityTraces(stack, userId)).files).toBe(1);
  });

  it.each([5_000, 33])('refuses metadata nested %i deep with 400, changing nothing', async (depth) => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(113));
    const response = await client.request(`/api/activities/${activity.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: `{"metadata":${nestedJson(depth - 1)}}`,
    });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toMatchObject({
      error: 'bad_request',
      message: expect.stringContaining('nested more than 32 deep'),
    });
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, metadata: {} }]);
  });

  it('refuses metadata nested 20,000 deep in UTF-16, with a character that reads as a quote in UTF-8, with 415, changing nothing', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(201));
    for (const order of ['LE', 'BE'] as const) {
      const response = await client.request(`/api/activities/${activity.id}`, {
        method: 'PATCH',
        headers: { 'content-type': `application/json; charset=utf-16${order.toLowerCase()}` },
        body: utf16(deepMetadata(20_000), order),
      });
      expect(response.status).toBe(415);
      expect(await bodyOf<ApiError>(response)).toEqual(NOT_UTF8);
    }
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, metadata: {} }]);
  });

  it('refuses metadata nested too deep in UTF-8 with 400 whatever the bytes around a quote, malformed ones too', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(202));
    const prefix = Buffer.from('{"metadata":{"k":"');
    for (const stray of [[0xe4, 0x84], [0xe2], [0xf0, 0x9f, 0x98], [0xc0], [0xff]]) {
      const rest = Buffer.from(`","d":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`);
      const response = await client.request(`/api/activities/${activity.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat([prefix, Buffer.from(stray), rest]),
      });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toMatchObject({ message: 'The body must not be nested more than 32 deep.' });
    }
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, metadata: {} }]);
  });

  it.each(PROTOTYPE_KEYED_METADATA)(
    'refuses metadata with a key named like a prototype member (%s) with 400 naming it, changing nothing',
    async (key, metadata) => {
      const { client } = await newUser();
      const activity = await uploadActivity(client, fitFile(116), { metadata: '{"kept":1}' });
      const response = await client.request(`/api/activities/${activity.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: `{"metadata":${metadata}}`,
      });
      expect(response.status).toBe(400);
      expect(await bodyOf<ApiError>(response)).toEqual({
        error: 'invalid_request',
        fields: ['metadata'],
        message: expect.stringContaining(`"${key}"`),
      });
      expect(await listActivities(client)).toMatchObject([{ id: activity.id, metadata: { kept: 1 } }]);
    },
  );

  it('refuses metadata holding a number too large to keep with 400 naming metadata, changing nothing', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(161), { metadata: '{"kept":1}' });
    const response = await client.request(`/api/activities/${activity.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"metadata":{"distance":1e999}}',
    });
    expect(response.status).toBe(400);
    expect(await bodyOf<ApiError>(response)).toMatchObject({ fields: ['metadata'], message: expect.stringContaining('1e999') });
    expect(await listActivities(client)).toMatchObject([{ id: activity.id, metadata: { kept: 1 } }]);
  });

  it('takes metadata nested as deep as a body may carry it', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(114));
    const response = await renameActivity(client, activity.id, { metadata: JSON.parse(nestedJson(31)) });
    expect(response.status).toBe(200);
  });

  it.each([[{}], [{ name: '' }], [{ metadata: 'text' }], [{ sha256: 'x' }]])('answers 400 to %j', async (changes) => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(112));
    expect((await renameActivity(client, activity.id, changes)).status).toBe(400);
  });
});

describe('another user’s activity', () => {
  it('is neither listed, changed nor deleted: 404', async () => {
    const owner = await newUser();
    const other = await newUser();
    const activity = await uploadActivity(owner.client, fitFile(120));
    expect(await listActivities(other.client)).toEqual([]);
    expect((await renameActivity(other.client, activity.id, { name: 'Mine' })).status).toBe(404);
    expect((await other.client.request(`/api/activities/${activity.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await listActivities(owner.client)).toMatchObject([{ id: activity.id }]);
  });

  it('is a separate activity when both upload the same file', async () => {
    const first = await newUser();
    const second = await newUser();
    const a = await uploadActivity(first.client, fitFile(121));
    const b = await uploadActivity(second.client, fitFile(121));
    expect(b.id).not.toBe(a.id);
  });
});

describe('GET /api/activities', () => {
  it('lists the newest first, each with its sync status', async () => {
    const { client } = await newUser();
    await uploadActivity(client, fitFile(130), { name: 'First' });
    await uploadActivity(client, fitFile(131), { name: 'Second' });
    expect((await listActivities(client)).map(({ name, sync }) => ({ name, sync }))).toEqual([
      { name: 'Second', sync: { status: 'pending' } },
      { name: 'First', sync: { status: 'pending' } },
    ]);
  });

  it('shows the same in GET /api/sync/status', async () => {
    const { client } = await newUser();
    const activity = await uploadActivity(client, fitFile(132), { name: 'Ride' });
    const status = await bodyOf<{ activities: unknown[] }>(await client.get('/api/sync/status?from=2026-01-01&to=2026-01-02'));
    expect(status.activities).toEqual([{ id: activity.id, name: 'Ride', sha256: activity.sha256, status: 'pending' }]);
  });
});

describe('DELETE /api/activities/:id', () => {
  it('deletes the activity, its bytes and its outbox entry here', async () => {
    const { client, userId } = await newUser();
    const activity = await uploadActivity(client, fitFile(140));
    expect((await client.request(`/api/activities/${activity.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await activityTraces(stack, userId)).toEqual({ rows: 0, files: 0, outbox: 0, fresh: 0 });
    expect((await client.request(`/api/activities/${activity.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('never gives a deleted activity’s id to a new one, so a delete sent again (its 204 lost) deletes nothing', async () => {
    const { client } = await newUser();
    const deleted = await uploadActivity(client, fitFile(141));
    expect((await client.request(`/api/activities/${deleted.id}`, { method: 'DELETE' })).status).toBe(204);
    const added = await uploadActivity(client, fitFile(142));
    expect(added.id).not.toBe(deleted.id);
    expect((await client.request(`/api/activities/${deleted.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 404 for an id that is not one', async () => {
    const { client } = await newUser();
    expect((await client.request('/api/activities/abc', { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 404 for an id larger than any row can have, on every database', async () => {
    const { client } = await newUser();
    const tooLarge = 2 ** 31;
    expect((await client.request(`/api/activities/${tooLarge}`, { method: 'DELETE' })).status).toBe(404);
    expect((await client.request(`/api/activities/${tooLarge}/file`)).status).toBe(404);
    expect((await renameActivity(client, tooLarge, { name: 'Mine' })).status).toBe(404);
  });
});

describe('a download whose file is deleted before its first byte went out', () => {
  /**
   * GET /api/activities/:id/file on a bare app of the activities API over the stack's database,
   * signed in as `user`; `meanwhile` runs once, after the file was found and before its first
   * piece is read, as a delete racing the download would.
   */
  async function downloadWhile(user: User, activityId: number, meanwhile: () => Promise<void>): Promise<Response> {
    const files = createDatabaseActivityFileStore(stack.db);
    let raced = false;
    const racing: ActivityFileStore = {
      ...files,
      async open(key) {
        const file = await files.open(key);
        if (file === undefined) return undefined;
        return {
          size: file.size,
          async *pieces() {
            if (!raced) await meanwhile();
            raced = true;
            yield* file.pieces();
          },
        };
      },
    };
    const activities = createActivities({
      db: stack.db,
      files: racing,
      lockFile: (_key, work) => work(),
      checkFile: async () => undefined,
      clock: () => new Date(),
    });
    const app = express();
    app.use((_req, res, next) => {
      res.locals.user = user;
      next();
    });
    app.use(activitiesApi({ activities }));
    const served = await serveWithErrorHandler(app);
    try {
      const response = await fetch(`${served.url}/api/activities/${activityId}/file`);
      await response.clone().arrayBuffer();
      return response;
    } finally {
      await served.close();
    }
  }

  async function uploaded(): Promise<{ user: User; activityId: number; key: string }> {
    const { client, userId } = await newUser();
    const activity = await uploadActivity(client, fitFile(170));
    const user = await stack.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    return { user, activityId: activity.id, key: activityFileKey(userId, activity.sha256) };
  }

  it('answers 404 when the activity was deleted, as the next request would', async () => {
    const { user, activityId, key } = await uploaded();
    const response = await downloadWhile(user, activityId, async () => {
      await stack.db.deleteFrom('activities').where('id', '=', activityId).execute();
      await createDatabaseActivityFileStore(stack.db).delete(key);
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not_found', message: 'No such activity.' });
  });

  it('answers 401 when the account was deleted', async () => {
    const { user, activityId, key } = await uploaded();
    const erasure = createAccountErasure({
      db: stack.db,
      forgetQueuedWork: async () => {},
      endSessions: async () => {},
      attemptLimits: { forgetAccount: async () => {} },
      clock: () => new Date(),
      logger: createLogger('silent', 'test'),
    });
    const response = await downloadWhile(user, activityId, () => erasure.erase(user));
    expect(await stack.db.selectFrom('activity_files').select('key').where('key', '=', key).execute()).toEqual([]);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthenticated', message: 'Sign in first.' });
  });

  it('answers 410 when the bytes were pruned once the service had them (ACTIVITY_RETENTION=prune-after-upload)', async () => {
    const { user, activityId, key } = await uploaded();
    const response = await downloadWhile(user, activityId, async () => {
      await stack.db.updateTable('activities').set({ file_stored: 0 }).where('id', '=', activityId).execute();
      await createDatabaseActivityFileStore(stack.db).delete(key);
    });
    expect(response.status).toBe(410);
    expect(await response.json()).toMatchObject({ error: 'file_pruned' });
  });
});
