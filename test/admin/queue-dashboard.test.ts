import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInToExistingAccount, signUpNewUser } from '../helpers/flows.js';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

const ADMIN = 'Ops@Example.com';

/** A history turn due in an hour, for the dashboard's "promote" (run it now) to act on. */
async function delayedJob(stack: Stack): Promise<string> {
  const job = await stack.syncQueues.history.add('turn', { userId: 1, failures: 3 }, { delay: 3600_000 });
  return job.id!;
}

function promote(admin: CookieClient, jobId: string): Promise<Response> {
  return admin.request(`/admin/queues/api/queues/sync-history/${jobId}/promote`, { method: 'PUT' });
}

describe('the queue dashboard', () => {
  let stack: Stack;
  let admin: CookieClient;

  beforeAll(async () => {
    stack = await startStack({ env: { ADMIN_EMAILS: `someone@example.com, ${ADMIN.toLowerCase()}` } });
    admin = await signedInToExistingAccount(stack, ADMIN);
  });
  afterAll(async () => {
    await stack.close();
  });

  it('sends a signed-out person from its page to sign in, and back to it after, as an admin', async () => {
    const client = stack.browser();
    const asked = await client.get('/admin/queues');
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe('/login?next=%2Fadmin%2Fqueues');
    const loginPage = await (await client.get(asked.headers.get('location')!)).text();
    const signIn = await client.postForm('/login', {
      email: ADMIN,
      password: 'a long password',
      next: hiddenField(loginPage, 'next'),
      _csrf: hiddenField(loginPage, '_csrf'),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/admin/queues');
    expect((await client.get('/admin/queues')).status).toBe(200);
  });

  it('is the ordinary 404 page for an account not in ADMIN_EMAILS, and its JSON for a signed-out person', async () => {
    const member = stack.browser();
    await signUpNewUser(member);
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const response = await member.get(path);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('Page not found');
    }
    const signedOut = await stack.browser().get('/admin/queues/api/queues');
    expect(signedOut.status).toBe(404);
  });

  it('shows an admin the sync queue, never stored by a browser or proxy', async () => {
    const page = await admin.get('/admin/queues');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-powered-by')).toBeNull();
    expect(await page.text()).toContain('<base href="/admin/queues/"');
    const api = await admin.get('/admin/queues/api/queues');
    expect(api.status).toBe(200);
    expect(await api.json()).toMatchObject({
      queues: [
        expect.objectContaining({ name: 'sync-fresh', readOnlyMode: true }),
        expect.objectContaining({ name: 'sync-history', readOnlyMode: true }),
      ],
    });
  });

  it('cannot be claimed by signing up with an address in ADMIN_EMAILS: that sign-up is refused like a taken address', async () => {
    const claimant = stack.browser();
    const response = await claimant.postJson('/api/signup', { email: 'someone@example.com', password: 'a long password', timezone: 'UTC' });
    expect(response.status).toBe(409);
    expect(await stack.db.selectFrom('users').select('id').where('email', '=', 'someone@example.com').executeTakeFirst()).toBeUndefined();
    // Still signed out: asked to sign in, not shown the board.
    expect((await claimant.get('/admin/queues')).status).toBe(303);
  });

  it('takes an admin’s JSON under the API’s rules: UTF-8 only, nested at most 32 deep', async () => {
    const addJob = (contentType: string, body: Buffer) =>
      admin.request('/admin/queues/api/queues/sync-history/add', {
        method: 'POST',
        // As Bull Board's page asks.
        headers: { 'content-type': contentType, accept: 'application/json, text/plain, */*' },
        body,
      });
    const deep = `{"name":"turn","data":{"d":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    const inUtf16 = await addJob('application/json; charset=utf-16le', Buffer.from(deep, 'utf16le'));
    expect(inUtf16.status).toBe(415);
    expect(await inUtf16.json()).toMatchObject({ error: 'unsupported_media_type' });
    const tooDeep = await addJob('application/json', Buffer.from(deep));
    expect(tooDeep.status).toBe(400);
    expect(await tooDeep.json()).toMatchObject({ message: 'The body must not be nested more than 32 deep.' });
  });

  it('refuses to change jobs while ADMIN_QUEUE_ACTIONS is not true', async () => {
    const jobId = await delayedJob(stack);
    expect((await promote(admin, jobId)).status).toBe(405);
    expect(await stack.syncQueues.history.getJobState(jobId)).toBe('delayed');
  });
});

describe('the queue dashboard with ADMIN_QUEUE_ACTIONS=true', () => {
  it('lets an admin change jobs, e.g. run a delayed one now', async () => {
    const stack = await startStack({ env: { ADMIN_EMAILS: ADMIN, ADMIN_QUEUE_ACTIONS: 'true' } });
    try {
      const admin = await signedInToExistingAccount(stack, ADMIN);
      const jobId = await delayedJob(stack);
      expect((await promote(admin, jobId)).status).toBe(204);
      expect(await stack.syncQueues.history.getJobState(jobId)).toBe('waiting');
    } finally {
      await stack.close();
    }
  });
});
