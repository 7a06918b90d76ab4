import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/web/session.js';
import { PASSWORD, sendJson } from '../helpers/account.js';
import { fitFile } from '../helpers/fit-files.js';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { personWithTwoSessions, storedSessionsOf } from '../helpers/sessions.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { holdUpload, type HeldUpload } from './held-upload.js';

/**
 * An upload under way, its session loaded, when the session is ended elsewhere: the page's upload
 * writes the session back as it finishes (it flashes what it did), which must not sign the person
 * in again (test/web/authentication.test.ts has the same of Connect's callback).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const NEW_PASSWORD = 'another long password';
let files = 0;

/**
 * An upload from the Activities page's form of `client`, held open after its first bytes once the
 * app admitted it: past sign-in, with its session loaded, which it writes back at its end (the page
 * flashes what it did). Admitted is when another upload of the person's is refused (429). The probe
 * is sent after a request of the same session has been answered, which its session and user were
 * read after the held upload's; a probe that still got in first has the held upload refused at
 * once, and it is started again.
 */
async function heldUploadFrom(client: CookieClient): Promise<HeldUpload> {
  const _csrf = hiddenField(await (await client.get('/activities')).text(), '_csrf');
  for (;;) {
    const upload = await holdUpload(`${stack.appUrl}/activities`, {
      cookie: `${SESSION_COOKIE}=${client.cookie(SESSION_COOKIE)}`,
      fields: { _csrf, name: 'Held ride' },
      file: fitFile(++files),
    });
    expect((await client.get('/api/me')).status).toBe(200);
    const probe = await client.request('/api/activities', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'probe' });
    if (probe.status === 429) return upload;
    await eventually('the held upload to be refused', async () => (upload.answeredEarly() ? true : undefined));
  }
}

describe('a session ended while an upload of its is under way', () => {
  it('stays ended after a new password, though the request writes it back as it finishes (401)', async () => {
    const { acting, other } = await personWithTwoSessions(stack);
    const upload = await heldUploadFrom(other);

    expect((await acting.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(204);
    expect((await other.get('/api/me')).status).toBe(401);
    expect(await (await other.get('/login')).text()).toContain('You were signed out because your password was changed');
    expect(await upload.finish()).toEqual({ status: 303, location: '/activities' });

    expect((await other.get('/api/me')).status).toBe(401);
    expect((await acting.get('/api/me')).status).toBe(200);
  });

  it('stays ended after signing out everywhere (401)', async () => {
    const { acting, other } = await personWithTwoSessions(stack);
    const upload = await heldUploadFrom(other);

    expect((await acting.postJson('/api/account/logout-everywhere', {})).status).toBe(204);
    expect(await upload.finish()).toEqual({ status: 303, location: '/activities' });

    expect((await other.get('/api/me')).status).toBe(401);
    expect((await acting.get('/api/me')).status).toBe(401);
    // Written back over what was left saying why, it is told by the person's last reason.
    expect(await (await other.get('/login')).text()).toContain('You were signed out because “Sign out everywhere” was chosen');
  });

  it('one written back and then outlived by its account signs no one in, and leaves Redis at its next request', async () => {
    const { id, acting, other } = await personWithTwoSessions(stack);
    const upload = await heldUploadFrom(other);
    expect((await acting.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(204);
    expect((await upload.finish()).status).toBe(303);

    expect((await sendJson(acting, 'DELETE', '/api/account', { password: NEW_PASSWORD })).status).toBe(204);

    expect((await other.get('/api/me')).status).toBe(401);
    expect(await storedSessionsOf(stack, id)).toEqual([]);
  });
});
