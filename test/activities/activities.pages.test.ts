import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncOverview } from '../../src/dashboard/sync-overview.js';
import { markDirty, markFailed } from '../../src/sync/outbox.js';
import { fitFile, notAFitFile } from '../helpers/fit-files.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { listActivities, uploadActivity } from './helpers.js';

const MAX_BYTES = 64 * 1024;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { ACTIVITY_MAX_BYTES: String(MAX_BYTES) } });
});
afterAll(async () => {
  await stack.close();
});

async function newUser(): Promise<CookieClient> {
  const client = stack.browser();
  await signUpNewUser(client);
  return client;
}

/** Posts the page's upload form as a browser does: multipart, the form token first, then the name and the file. */
async function postUploadForm(client: CookieClient, bytes: Uint8Array, name = '', csrf?: string): Promise<Response> {
  const form = new FormData();
  form.append('_csrf', csrf ?? hiddenField(await (await client.get('/activities')).text(), '_csrf'));
  form.append('name', name);
  form.append('file', new Blob([bytes]), 'Evening ride.fit');
  return client.request('/activities', { method: 'POST', body: form });
}

describe('the Activities page', () => {
  it('uploads a file from its form, then shows it with its status and says a delete stays here', async () => {
    const client = await newUser();
    const response = await postUploadForm(client, fitFile(1));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/activities');
    const page = await (await client.get('/activities')).text();
    expect(page).toContain('Evening ride');
    // Never connected: it waits for a connection.
    expect(page).toContain('data-sync-state="pending">Waiting for a connection<');
    expect(page).toContain('the Athlete Data Service documents no way to delete an upload');
  });

  it('shows a file that is not .fit refused on the page, in plain words next to the file, keeping the name typed, storing nothing', async () => {
    const client = await newUser();
    const response = await postUploadForm(client, notAFitFile(), 'Ride');
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('<input name="name" value="Ride" id="upload-name">');
    expect(page).toMatch(
      /<input name="file" value="" type="file" accept=".fit" id="upload-file" required aria-invalid="true" aria-describedby="upload-file-problem">/,
    );
    expect(page).toContain(
      '<span class="field-problem" id="upload-file-problem">This is not a .fit file: it does not start with a FIT file header.</span>',
    );
    expect(await listActivities(client)).toEqual([]);
  });

  it('asks for a file in the person’s words when the form came without one, not in the API’s', async () => {
    const client = await newUser();
    const form = new FormData();
    form.append('_csrf', hiddenField(await (await client.get('/activities')).text(), '_csrf'));
    form.append('name', 'Ride');
    const response = await client.request('/activities', { method: 'POST', body: form });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('<span class="field-problem" id="upload-file-problem">File must be chosen: pick a .fit file to upload.</span>');
    expect(page).not.toContain('send it in the part');
  });

  it('shows a file over the limit refused on the page, next to the file, with a form that still works', async () => {
    const client = await newUser();
    const response = await postUploadForm(client, new Uint8Array(MAX_BYTES + 1), 'Ride');
    expect(response.status).toBe(413);
    const page = await response.text();
    expect(page).toContain('<span class="field-problem" id="upload-file-problem">The file is larger than the limit of 64 KiB.</span>');
    expect((await postUploadForm(client, fitFile(2), 'Ride', hiddenField(page, '_csrf'))).status).toBe(303);
  });

  it('keeps the file’s hash under Details, and after a refusal advises what can help: nothing for a file too large for the service', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const refuse = async (bytes: Uint8Array, text: string) => {
      const activity = await uploadActivity(client, bytes);
      await markFailed(stack.db, { userId, kind: 'activities', subject: String(activity.id) }, 1, { problem: 'refused', text }, new Date());
      return activity;
    };
    const tooLarge = await refuse(fitFile(5), 'HTTP 413: invalid_request: file too large (maxFitBytes)');
    const refused = await refuse(fitFile(6), 'HTTP 400: invalid_request: FIT file CRC does not match');
    const page = await (await client.get('/activities')).text();
    const entryOf = (id: number) =>
      page.slice(page.indexOf(`data-activity="${id}"`), page.indexOf('</form>', page.indexOf(`data-activity="${id}"`)));
    for (const activity of [tooLarge, refused]) {
      const entry = entryOf(activity.id);
      expect(entry).toMatch(new RegExp(`<summary>Details</summary>[\\s\\S]*<li>File SHA-256: ${activity.sha256}</li>[\\s\\S]*</details>`));
      expect(entry.replace(/<details[\s\S]*<\/details>/, '')).not.toContain('SHA-256');
    }
    expect(entryOf(tooLarge.id)).toContain('The service takes no file this large, so it cannot be sent.');
    expect(entryOf(tooLarge.id)).not.toContain('another name');
    expect(entryOf(refused.id)).toContain('Upload it again under another name to try again.');
  });

  it('refuses an upload without the form token', async () => {
    const client = await newUser();
    expect((await postUploadForm(client, fitFile(3), 'Ride', 'forged')).status).toBe(403);
    expect(await listActivities(client)).toEqual([]);
  });

  it('deletes an activity from its Delete button', async () => {
    const client = await newUser();
    const activity = await uploadActivity(client, fitFile(4));
    const page = await (await client.get('/activities')).text();
    const response = await client.postForm(`/activities/${activity.id}/delete`, { _csrf: hiddenField(page, '_csrf') });
    expect(response.status).toBe(303);
    expect(await listActivities(client)).toEqual([]);
  });
});

describe('the dashboard’s sync overview', () => {
  it('shows an activity entry whose subject names no row there can be (a hand edit) by its subject, on every database', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const { id: userId } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    for (const subject of ['abc', String(2 ** 31)]) await markDirty(stack.db, { userId, kind: 'activities', subject }, new Date());
    const overview = await bodyOf<SyncOverview>(await client.get('/api/sync/overview'));
    const labels = overview.kinds.find((kind) => kind.kind === 'activities')?.entries.map((entry) => entry.label);
    expect(labels?.sort()).toEqual([`Activity ${2 ** 31}`, 'Activity abc']);
    expect((await client.get('/')).status).toBe(200);
  });
});
