import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_PIECE_BYTES } from '../../src/activities/activity-file-store.js';
import { fitFile, fitFileOfSize } from '../helpers/fit-files.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { postActivity, uploadActivity } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' }, captureLogs: 'warn' });
});
afterAll(async () => {
  await stack.close();
});

describe("the account's export of activities", () => {
  it('holds each of the person’s activities with where its sync stands and the link to its file', async () => {
    const client = stack.browser();
    await signUpNewUser(client);
    expect((await connect(client)).status).toBe(303);
    const activity = await uploadActivity(client, fitFile(41), { name: 'Morning ride', metadata: JSON.stringify({ bike: 'gravel' }) });

    const response = await client.get('/api/account/export');

    expect(response.status).toBe(200);
    const exported = JSON.parse(await response.text());
    expect(exported).toMatchObject({
      activities: [
        {
          id: activity.id,
          name: 'Morning ride',
          metadata: { bike: 'gravel' },
          sha256: activity.sha256,
          file: `/api/activities/${activity.id}/file`,
        },
      ],
    });
    expect(exported.activities[0].sync).toMatchObject({ status: 'pending' });
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
