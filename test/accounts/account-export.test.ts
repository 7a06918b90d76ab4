import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds.js';
import { connect, signUpNewUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';

/**
 * The export's shared part, whichever kinds are registered: the account, the connection, the sync of
 * each day (made here by the test kind, test/helpers/kinds.ts) and the mails. Each kind's own rows
 * in it are tested in its folder (test/<kind>/).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
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
    await writeDay(client, '2026-03-10');
    const someoneElse = stack.browser();
    const someoneElsesEmail = await signUpNewUser(someoneElse);
    await writeDay(someoneElse, '2026-03-10', 1);

    const { response, text } = await exportOf(client);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="?athlete-sync-export-\d{4}-\d{2}-\d{2}\.json"?$/);
    const exported = JSON.parse(text);
    expect(exported).toMatchObject({
      account: { email, emailVerifiedAt: null, timezone: 'Europe/Kyiv', connectionMail: true },
      connection: { status: 'connected', scopes: expect.arrayContaining(KINDS.map((kind) => kind.scope)) },
      syncDays: [expect.objectContaining({ kind: workload.syncKind, date: '2026-03-10', status: 'pending' })],
      connectionMails: [],
    });
    expect(exported.account.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

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
    expect(text).not.toContain(someoneElsesEmail);
  });

  it('answers 401 signed out', async () => {
    expect((await stack.browser().get('/api/account/export')).status).toBe(401);
  });
});
