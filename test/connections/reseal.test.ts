import { withRequestedScopes } from '../../src/connections/capabilities.js';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findConnection,
  loadGrant,
  storeRefreshedTokens,
  storeResealedTokens,
  type StoredGrant,
} from '../../src/connections/connection.repository.js';
import { resealAllTokens } from '../../src/connections/reseal.js';
import { createTokenCipher, tokenKeyId, type TokenCipher } from '../../src/connections/token-crypto.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthClient, type OAuthClient } from '../../src/provider/oauth.js';
import { connect, connectedUser } from '../helpers/flows.js';
import { run } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const newKey = randomBytes(32);
/** The settings after a rotation: the new key current, the stack's own key as the previous one. */
const rotatedCipher = () => createTokenCipher(newKey, [stack.config.tokenEncryption.key]);
const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);

function reseal(cipher: TokenCipher) {
  return resealAllTokens(stack.db, cipher, () => new Date(), createLogger('silent'));
}

async function openedWith(cipher: TokenCipher, userId: number): Promise<StoredGrant> {
  const grant = await loadGrant(stack.db, cipher, userId);
  if (!grant?.readable) throw new Error(`user ${userId}'s tokens do not open`);
  return grant;
}

describe('resealing the stored tokens under the current key', () => {
  it('reseals tokens sealed under an old key, after which they open with the new key alone', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const users = [await connectedUser(stack), await connectedUser(stack)];
    const before = await Promise.all(users.map(({ userId }) => openedWith(stack.cipher, userId)));

    expect(await reseal(rotatedCipher())).toEqual({ resealed: 2, alreadyCurrent: 0, keyNotConfigured: {}, unreadable: 0 });
    const onlyNewKey = createTokenCipher(newKey);
    for (const [index, { userId }] of users.entries()) {
      const after = await openedWith(onlyNewKey, userId);
      expect(after).toMatchObject({ accessToken: before[index]!.accessToken, refreshToken: before[index]!.refreshToken });
    }
    expect(await reseal(rotatedCipher())).toEqual({ resealed: 0, alreadyCurrent: 2, keyNotConfigured: {}, unreadable: 0 });
  });

  it('leaves tokens sealed with a key not configured here as they are, and reports them by key id', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const oldKeyDropped = createTokenCipher(newKey);
    expect(await reseal(oldKeyDropped)).toEqual({
      resealed: 0,
      alreadyCurrent: 0,
      keyNotConfigured: { [stack.cipher.currentKeyId]: 1 },
      unreadable: 0,
    });
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', statusReason: undefined });
    expect(await stack.db.selectFrom('connection_notices').selectAll().execute()).toEqual([]);
  });

  it('marks the connections sealed with a key declared gone needs_reconnect with that reason, tells the person, and reconnecting clears it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId, client } = await connectedUser(stack);
    const forgottenKeyIds = new Set([stack.cipher.currentKeyId]);
    const summary = await resealAllTokens(stack.db, createTokenCipher(newKey), () => new Date(), createLogger('silent'), {
      forgottenKeyIds,
    });
    expect(summary).toEqual({ resealed: 0, alreadyCurrent: 0, keyNotConfigured: {}, unreadable: 1 });
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'needs_reconnect', statusReason: 'token_key_removed' });
    const notices = await stack.db.selectFrom('connection_notices').select(['kind', 'detail']).where('user_id', '=', userId).execute();
    expect(notices).toEqual([{ kind: 'needs_reconnect', detail: 'token_key_removed' }]);
    expect(await (await client.get('/')).text()).toContain(
      'This app can no longer read your stored authorization (its encryption key was removed). Reconnect',
    );

    expect((await connect(client)).status).toBe(303);
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', statusReason: undefined });
    expect(await (await client.get('/')).text()).not.toContain('encryption key was removed');
  });

  it('counts damaged tokens as unreadable, marks their connection with that reason, and reseals the others', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const damaged = await connectedUser(stack);
    const intact = await connectedUser(stack);
    await stack.db.updateTable('connections').set({ refresh_token_sealed: 'not sealed' }).where('user_id', '=', damaged.userId).execute();
    expect(await reseal(rotatedCipher())).toEqual({ resealed: 1, alreadyCurrent: 0, keyNotConfigured: {}, unreadable: 1 });
    expect(await findConnection(stack.db, damaged.userId)).toMatchObject({ status: 'needs_reconnect', statusReason: 'tokens_damaged' });
    expect(await findConnection(stack.db, intact.userId)).toMatchObject({ status: 'connected' });
  });

  it('never overwrites tokens a refresh stored after the reseal read the row', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const readByReseal = await openedWith(stack.cipher, userId);
    const refreshed = { ...readByReseal, accessToken: 'newer-access', refreshToken: 'newer-refresh' };
    expect(await storeRefreshedTokens(stack.db, stack.cipher, readByReseal, refreshed, new Date())).toBe(true);
    expect(await storeResealedTokens(stack.db, rotatedCipher(), readByReseal, new Date())).toBe(false);
    expect(await openedWith(stack.cipher, userId)).toMatchObject({ accessToken: 'newer-access', refreshToken: 'newer-refresh' });
  });

  it('lets a refresh that was in flight during the reseal store the tokens the service rotated', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const before = await openedWith(stack.cipher, userId);
    const realOAuth = createOAuthClient(withRequestedScopes(stack.config.athlete));
    const resealingMeanwhile: OAuthClient = {
      ...realOAuth,
      refresh: async (refreshToken, scopes) => {
        await reseal(rotatedCipher());
        return realOAuth.refresh(refreshToken, scopes);
      },
    };
    const token = await stack.accessTokens({ clock: later(3600), oauth: resealingMeanwhile }).accessTokenFor(userId);
    expect(token).not.toBe(before.accessToken);
    expect((await openedWith(rotatedCipher(), userId)).accessToken).toBe(token);
  });
});

describe('npm run reseal', () => {
  const resealCommand = (env: Record<string, string>, args: string[] = []) =>
    run('npm', ['run', '--silent', 'reseal', ...(args.length > 0 ? ['--', ...args] : [])], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: stack.env.DATABASE_URL,
      ...env,
    });
  const onlyNewKey = () => ({ TOKEN_ENCRYPTION_KEY: newKey.toString('base64') });

  it('prints a one-line summary', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    await connectedUser(stack);
    const result = await resealCommand({ ...onlyNewKey(), TOKEN_ENCRYPTION_PREVIOUS_KEYS: stack.env.TOKEN_ENCRYPTION_KEY! });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      'Resealed 1, already current 0, key not configured 0, unreadable 0: every stored token is sealed with the current key.\n',
    );
  });

  it('names the keys not configured, and forgets those it is told the ids of', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const oldKeyId = stack.cipher.currentKeyId;
    const told = await resealCommand(onlyNewKey());
    expect(told.code).toBe(0);
    expect(told.stderr).toContain(`"tokenKeyId":"${oldKeyId}"`);
    expect(told.stdout).toBe(
      `Resealed 0, already current 0, key not configured 1, unreadable 0: those whose key is not configured (key id ${oldKeyId}: 1) are left as they are; ` +
        'add the key to TOKEN_ENCRYPTION_PREVIOUS_KEYS, or, if it is gone for good, run npm run reseal -- --forget-key <key id> to ask their people to reconnect.\n',
    );
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected' });

    const anotherGoneKeyId = tokenKeyId(randomBytes(32));
    const forgotten = await resealCommand(onlyNewKey(), ['--forget-key', anotherGoneKeyId, '--forget-key', oldKeyId]);
    expect(forgotten.stdout).toBe(
      'Resealed 0, already current 0, key not configured 0, unreadable 1: the unreadable connections now need reconnecting.\n',
    );
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'needs_reconnect', statusReason: 'token_key_removed' });
  });

  it('refuses to forget a key that is configured, or something that is not a key id, and changes nothing', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { userId } = await connectedUser(stack);
    const oldKeyId = stack.cipher.currentKeyId;
    const configured = await resealCommand({ ...onlyNewKey(), TOKEN_ENCRYPTION_PREVIOUS_KEYS: stack.env.TOKEN_ENCRYPTION_KEY! }, [
      '--forget-key',
      oldKeyId,
    ]);
    expect(configured).toMatchObject({ code: 1, stdout: '' });
    expect(configured.stderr).toContain(`--forget-key ${oldKeyId} is a configured key`);
    const malformed = await resealCommand(onlyNewKey(), ['--forget-key', 'not-a-key-id']);
    expect(malformed).toMatchObject({ code: 1, stdout: '' });
    expect(malformed.stderr).toContain('--forget-key must be a key id: 16 hex digits');
    expect(await stack.storedGrant(userId)).toMatchObject({ status: 'connected', tokenKeyId: oldKeyId });
  });
});
