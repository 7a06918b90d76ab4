import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postActivity, uploadActivity } from '../activities/helpers.js';
import { STORED_PIECE_BYTES } from '../../src/activities/activity-file-store.js';
import { KINDS } from '../../src/kinds.js';
import { fitFile, fitFileOfSize } from '../helpers/fit-files.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { putWellness } from '../wellness/helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'warn' });
});
afterAll(async () => {
  await stack.close();
});

async function exportOf(client: CookieClient): Promise<{ response: Response; text: string }> {
  const response = await client.get('/api/account/export');
  return { response, text: await response.text() };
}

describe('GET /api/account/export', () => {
  it('is a JSON attachment of everything the app holds about the person, and no secret', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client, 'Europe/Kyiv');
    expect((await connect(client)).status).toBe(303);
    await putWellness(client, '2026-03-10', { hrv: 61, sleepSecs: 27000 });
    const activity = await uploadActivity(client, fitFile(41), { name: 'Morning ride', metadata: JSON.stringify({ bike: 'gravel' }) });
    const someoneElse = stack.browser();
    await signUpNewUser(someoneElse);
    await putWellness(someoneElse, '2026-03-10', { hrv: 99 });

    const { response, text } = await exportOf(client);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="?athlete-sync-export-\d{4}-\d{2}-\d{2}\.json"?$/);
    const exported = JSON.parse(text);
    expect(exported).toMatchObject({
      account: { email, emailVerifiedAt: null, timezone: 'Europe/Kyiv', connectionMail: true },
      connection: { status: 'connected', scopes: expect.arrayContaining(KINDS.map((kind) => kind.scope)) },
      wellness: [{ date: '2026-03-10', hrv: 61, sleepSecs: 27000 }],
      activities: [
        {
          id: activity.id,
          name: 'Morning ride',
          metadata: { bike: 'gravel' },
          sha256: activity.sha256,
          file: `/api/activities/${activity.id}/file`,
        },
      ],
      syncDays: [expect.objectContaining({ kind: 'wellness', date: '2026-03-10', status: 'pending' })],
      connectionMails: [],
    });
    expect(exported.account.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(exported.activities[0].sync).toMatchObject({ status: 'pending' });

    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const stored = await stack.db.selectFrom('connections').selectAll().where('user_id', '=', id).executeTakeFirstOrThrow();
    const { password_hash } = await stack.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow();
    const grant = (await stack.storedGrant(id))!;
    for (const secret of [
      grant.accessToken,
      grant.refreshToken,
      stored.access_token_sealed,
      stored.refresh_token_sealed,
      password_hash,
      stored.grant_id,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/sbx_(at|rt|code)_|\$argon2|password/i);
    expect(text).not.toContain('Somebody else');
  });

  it('holds the last workouts list fetched from the service, with when', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await connect(client)).status).toBe(303);
    expect(JSON.parse((await exportOf(client)).text).lastWorkoutList).toBeNull();
    const listed = (await (await client.get('/api/workouts')).json()) as { fetchedAt: string; workouts: unknown[]; notes: string[] };
    expect(JSON.parse((await exportOf(client)).text).lastWorkoutList).toEqual({
      fetchedAt: listed.fetchedAt,
      workouts: listed.workouts,
      notes: listed.notes,
    });
  });

  it('answers 401 signed out', async () => {
    expect((await stack.browser().get('/api/account/export')).status).toBe(401);
  });
});

describe('GET /api/activities/:id/file', () => {
  it('answers the stored .fit file byte for byte, as an attachment under its file name', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    const bytes = fitFile(77);
    const activity = await uploadActivity(client, bytes, { fileName: 'evening run.fit' });
    const response = await client.get(`/api/activities/${activity.id}/file`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toContain('evening run.fit');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);
  });

  it.each([
    // A name that is an RFC 7230 token needs no quotes (RFC 6266).
    ['x.html', 'attachment; filename=x.html'],
    ['win.ini', 'attachment; filename=win.ini'],
    ['say "hi".svg', 'attachment; filename="say \\"hi\\".svg"'],
    ['Müller.js', `attachment; filename="M?ller.js"; filename*=UTF-8''M%C3%BCller.js`],
  ])('answers a file uploaded as %s as application/octet-stream, its name quoted in the attachment', async (fileName, disposition) => {
    const client = stack.browser();
    await signUpNewUser(client);
    const activity = await uploadActivity(client, fitFile(79), { fileName });
    const response = await client.get(`/api/activities/${activity.id}/file`);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toBe(disposition);
  });

  it('sends a file of many stored pieces byte for byte, its length said first', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    // Four pieces of the store (STORED_PIECE_BYTES) and a part, read one at a time as they are sent.
    const bytes = fitFileOfSize(4.5 * STORED_PIECE_BYTES);
    const activity = await uploadActivity(client, bytes);
    const response = await client.get(`/api/activities/${activity.id}/file`);
    expect(response.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('stops reading for a client that leaves midway, logging no error, and sends the file whole to the next', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    // More than the connection's buffers hold, so the client leaves while the file is still read.
    const bytes = fitFileOfSize(16 * 1024 * 1024);
    const activity = await uploadActivity(client, bytes);
    const logsBefore = stack.logs.length;
    const response = await client.get(`/api/activities/${activity.id}/file`);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();

    const again = await client.get(`/api/activities/${activity.id}/file`);
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(stack.logs.slice(logsBefore)).toEqual([]);
  });

  it('cuts a download short, never ending it as if whole, when the file is deleted while it is sent', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    const bytes = fitFileOfSize(16 * 1024 * 1024);
    const activity = await uploadActivity(client, bytes);
    const response = await client.get(`/api/activities/${activity.id}/file`);
    const reader = response.body!.getReader();
    await reader.read();
    expect((await client.request(`/api/activities/${activity.id}`, { method: 'DELETE' })).status).toBe(204);

    const readToEnd = async (): Promise<void> => {
      while (!(await reader.read()).done);
    };
    await expect(readToEnd()).rejects.toThrow();
  });

  it("is 404 for another person's activity and for ids that are not ids, 410 once the bytes were pruned", async () => {
    const owner = stack.browser();
    await signUpNewUser(owner);
    const activity = await uploadActivity(owner, fitFile(78));
    const stranger = stack.browser();
    await signUpNewUser(stranger);
    for (const path of [
      `/api/activities/${activity.id}/file`,
      '/api/activities/0/file',
      '/api/activities/abc/file',
      '/api/activities/99999999999999999999/file',
    ]) {
      expect((await stranger.get(path)).status).toBe(404);
    }
    await stack.db.updateTable('activities').set({ file_stored: 0 }).where('id', '=', activity.id).execute();
    const pruned = await owner.get(`/api/activities/${activity.id}/file`);
    expect(pruned.status).toBe(410);
    expect(await pruned.json()).toMatchObject({ error: 'file_pruned' });
    expect((await postActivity(owner, fitFile(78))).status).toBe(200);
    expect((await owner.get(`/api/activities/${activity.id}/file`)).status).toBe(200);
  });
});
